import ArgumentParsing
import DeviceStore
import PartitionMirror
import PrivateSync

extension RecordCommand {
    /// `privatesync record delete`.
    struct Delete: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "delete", abstract: "Delete a record.")
        }

        @OptionGroup var target: RecordOnDevice

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let app = try cli.resumedApp(target.device, in: world)
            // CKSyncEngine's delegate keeps what it knows of each record's first save beside the store: a delete
            // of a user-created record goes through it (``MirroredApp/deleteRecord(_:of:)``).
            let record =
                try cli.isMirrored(app) && app.stores.userCreated.containsRecord(named: target.name)
                ? MirroredApp.deleteRecord(target.name, of: app) : app.delete(target.name)
            Terminal.line("Deleted \(record.type) \(record.name)")
            return .success
        }
    }
}
