import ArgumentParsing

/// `privatesync fault`: its subcommands.
struct FaultCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "fault", abstract: "Faults that the next commands meet.",
            subcommands: [Inject.self, List.self, Clear.self])
    }
}
