import ArgumentParsing

/// `privatesync`: the tool itself, whose subcommands are its commands.
struct PrivateSyncCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "privatesync",
            abstract: "Build a world of devices and iCloud accounts, launch the app, sync, inject faults.",
            discussion: """
                Every command is a fresh process, as every launch of an app is. The world lives in --home DIR, else
                $PRIVATESYNC_HOME, else ./.privatesync. Exit codes: 0 success, 1 a check found a problem, 64 usage,
                65 bad input data, 66 a missing world, device or record, 70 internal, 74 a damaged or unreadable file.
                """,
            subcommands: [
                InitCommand.self, DeviceCommand.self, AccountCommand.self, LaunchCommand.self, SyncCommand.self,
                RecordCommand.self, CloudCommand.self, InspectCommand.self, AuditCommand.self, FaultCommand.self,
                SimulateCommand.self, DemoCommand.self,
            ])
    }
}
