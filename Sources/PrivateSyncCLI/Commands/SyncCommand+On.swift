import ArgumentParsing

extension SyncCommand {
    /// `privatesync sync on`.
    struct On: SyncSwitchCommand {
        static let turnsOn = true

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String
        @Flag(help: CommandHelp.json) var json: Bool
    }
}
