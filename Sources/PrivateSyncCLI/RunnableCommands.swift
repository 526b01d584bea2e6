import ArgumentParsing

/// Every command of `privatesync` that runs, so that the one a command line chose is found by its type.
///
/// Casting the decoded command to `any RunnableCommand` found the same, but the first cast to a protocol scans every
/// protocol conformance in the binary: 311k of the 7.3M instructions of `sync status` (callgrind, `make bench`'s
/// `status_vs_sqlite3`). The list names each type statically, so each entry's conformance is the compiler's.
/// `RunnableCommandsTests` checks that every command in the tree that is not only a group of subcommands is here; a
/// type missing all the same is still found by the cast.
enum RunnableCommands {
    /// Every runnable command type, in the order of their files (computed: a stored list of metatypes would not be
    /// `Sendable`; a command line reads it once).
    static var all: [any RunnableCommand.Type] {
        [
            AccountCommand.SignIn.self, AccountCommand.SignOut.self, AccountCommand.StartFresh.self,
            AccountCommand.Status.self, AuditCommand.self, CloudRecordCommand.Delete.self, CloudRecordCommand.Edit.self,
            CloudRecordCommand.List.self, CloudRecordCommand.Put.self, CloudZoneCommand.Delete.self,
            CloudZoneCommand.List.self, DemoCommand.self, DeviceCommand.Add.self, DeviceCommand.List.self,
            DeviceCommand.Reinstall.self, DeviceCommand.Upgrade.self, FaultCommand.Clear.self, FaultCommand.Inject.self,
            FaultCommand.List.self, InitCommand.self, InspectCommand.self, LaunchCommand.self, RecordCommand.Add.self,
            RecordCommand.Delete.self, RecordCommand.Edit.self, RecordCommand.List.self, SimulateCommand.Merge.self,
            SimulateCommand.self, SyncCommand.Now.self, SyncCommand.Off.self, SyncCommand.On.self,
            SyncCommand.Reset.self, SyncCommand.Status.self,
        ]
    }

    /// The runnable command a parsed command line chose, its values in place.
    ///
    /// - Parameter parsed: The command line, already checked against the command's declarations.
    /// - Returns: The command, or `nil` when the chosen command does not run (none in the tree).
    /// - Throws: ``ValueError`` for the first value the command's declarations refuse.
    static func decode(_ parsed: ParsedCommand) throws(ValueError) -> (any RunnableCommand)? {
        let chosen = ObjectIdentifier(parsed.command)
        if let type = all.first(where: { ObjectIdentifier($0) == chosen }) {
            return try decode(type, from: parsed)
        }
        return try parsed.decodeCommand() as? any RunnableCommand
    }

    /// Decodes a command of a type known to run.
    private static func decode<Command: RunnableCommand>(
        _ type: Command.Type, from parsed: ParsedCommand
    ) throws(ValueError) -> any RunnableCommand {
        try parsed.decode(type)
    }
}
