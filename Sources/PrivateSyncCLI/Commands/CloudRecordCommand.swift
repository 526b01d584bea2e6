import ArgumentParsing

/// `privatesync cloud record`: its subcommands.
struct CloudRecordCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "record", abstract: "Put, edit, delete and list records in an account's container.",
            subcommands: [Put.self, Edit.self, Delete.self, List.self])
    }
}
