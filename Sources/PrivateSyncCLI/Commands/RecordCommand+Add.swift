import ArgumentParsing
import DeviceStore
import PartitionMirror
import PrivateCloud
import PrivateSync
import SimulatedWorld

extension RecordCommand {
    /// `privatesync record add`.
    struct Add: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "add",
                abstract: "Add a record; prints its name once it and its pending change are durably stored.",
                discussion:
                    "VALUE is read by the field's type: text; an integer; a number; true or false; a date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS[.fraction] with Z or ±HH:MM, or 'now'; docs/cli.md); canonical base64 bytes; a record name (reference); 'lat,lon' (location). '@FILE' reads the value from a file ('@@' for a literal '@'). Repeat a list field's --field once per element; 'KEY=[]' gives an empty list.",
                examples: [
                    "privatesync record add CheckIn --device phone --field mood=4 --field date=now",
                    "privatesync record add CheckIn --device phone --name checkin-2026-11-29 --field mood=4 --field date=now",
                ])
        }

        /// The most records one `record add --count` adds.
        static let maximumAddCount = 10_000

        @Argument(valueName: "TYPE", help: "The record type.") var type: String
        @Option(valueName: "NAME", help: CommandHelp.device) var device: String
        @Option(valueName: "KEY=VALUE", help: "A field value.") var field: [String]
        @Option(
            valueName: "NAME",
            help:
                "The record's name, checked as CloudKit checks record names (default: a new UUID); refused if a record on the device has it.",
            parsing: .recordName)
        var name: String?
        @Option(
            valueName: "N", help: "Add N records (1 to 10000) with these fields, each under a new name, one a line.",
            parsing: .wholeNumber(in: 1...Add.maximumAddCount))
        var count: Int?
        @Flag(help: CommandHelp.json) var json: Bool

        func validate() throws {
            if (count ?? 1) > 1 && (name != nil || json) {
                throw CLIError(
                    .usage, "--count adds records under new names, one a line: it takes neither --name nor --json")
            }
        }

        func run(_ cli: CLI) throws -> ExitCode {
            // Value files are read before any file of the world is open (see FieldAssignment).
            let assignments = try FieldAssignment.read(field)
            let world = try cli.world()
            guard let partitioned = world.partition.partitionedType(named: type),
                let recordType = world.partition.schema.recordType(named: type)
            else {
                let known = world.partition.schema.recordTypes.map(\.name).joined(separator: ", ")
                throw CLIError(
                    .dataError, "unknown record type '\(TextEscaping.escape(type.prefix(60)))' (known types: \(known))")
            }
            // Bad input is refused before any store is opened.
            let count = self.count ?? 1
            let fields = try FieldParsing.parse(assignments, for: recordType, now: world.options.clock.now())
            let app = try cli.resumedApp(device, in: world)
            for _ in 0..<count {
                let record =
                    try name.map { name in try add(partitioned, named: name, fields: fields, to: app, cli) }
                    ?? app.add(partitioned, fields: fields)

                // The record and its pending change are committed (durably) by the time add returns.
                if json {
                    Terminal.json(RecordJSON(record, partition: partitioned.partition))
                } else {
                    Terminal.line(record.name)
                }
            }
            return .success
        }

        /// Adds a record under a chosen name: on a device whose build is CKSyncEngine's delegate, a user-created one
        /// as the delegate adds it (``MirroredApp/addRecord(_:name:fields:of:)``: a name of a record deleted here is
        /// marked as made anew, so that a fetched deletion of the older record leaves the new one alone).
        ///
        /// - Parameters:
        ///   - type: The record's type, with its partition.
        ///   - name: Its name.
        ///   - fields: Its fields.
        ///   - app: The app.
        ///   - cli: The CLI, which says the device's build.
        /// - Returns: The record as stored.
        /// - Throws: `StoreError` for a name or a value the store refuses.
        private func add(
            _ type: PartitionedType, named name: String, fields: [String: FieldValue], to app: LaunchedApp, _ cli: CLI
        ) throws -> StoredRecord {
            if case .userCreated(let userCreated) = type, cli.isMirrored(app) {
                return try MirroredApp.addRecord(userCreated, name: name, fields: fields, of: app)
            }
            return try app.add(type, name: name, fields: fields)
        }
    }
}
