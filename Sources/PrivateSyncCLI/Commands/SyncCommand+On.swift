import ArgumentParsing

extension SyncCommand {
    /// `privatesync sync on`.
    struct On: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "on", abstract: "Turn sync on, as the settings switch does.")
        }

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String
        @Flag(help: CommandHelp.json) var json: Bool

        func run(_ cli: CLI) throws -> ExitCode {
            try SyncCommand.flip(on: true, device: device, json: json, cli)
        }
    }
}
