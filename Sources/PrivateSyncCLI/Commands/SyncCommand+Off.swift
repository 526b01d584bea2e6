import ArgumentParsing

extension SyncCommand {
    /// `privatesync sync off`.
    struct Off: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "off", abstract: "Turn sync off, as the settings switch does.")
        }

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String
        @Flag(help: CommandHelp.json) var json: Bool

        func run(_ cli: CLI) throws -> ExitCode {
            try SyncCommand.flip(on: false, device: device, json: json, cli)
        }
    }
}
