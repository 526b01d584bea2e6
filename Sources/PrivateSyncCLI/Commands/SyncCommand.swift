import ArgumentParsing

/// `privatesync sync`: its subcommands.
struct SyncCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "sync", abstract: "Flip the sync switch, sync now, or show the status.",
            subcommands: [On.self, Off.self, Now.self, Status.self, Reset.self])
    }
}
