import ArgumentParsing

/// `privatesync cloud zone`: its subcommands.
struct CloudZoneCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "zone", abstract: "List or delete an account's zones.", subcommands: [List.self, Delete.self])
    }
}
