import ArgumentParsing

extension SyncCommand {
    /// `privatesync sync off`.
    struct Off: SyncSwitchCommand {
        static let turnsOn = false

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String
        @Flag(help: CommandHelp.json) var json: Bool
    }
}
