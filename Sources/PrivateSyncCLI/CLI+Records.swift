import ArgumentParsing
import DeviceStore
import PrivateCloud
import PrivateSync
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension CLI {
    func recordAdd() throws -> ExitCode {
        let world = try world()
        let typeName = command.arguments[0]
        guard let type = world.partition.schema.recordType(named: typeName) else {
            let known = world.partition.schema.recordTypes.map(\.name).joined(separator: ", ")
            throw CLIError(
                .dataError, "unknown record type '\(TextEscaping.escape(typeName.prefix(60)))' (known types: \(known))")
        }
        // Bad input is refused before any store is opened.
        let name = try command.option("name").map { text throws(CLIError) in try recordName(text) }
        let count = try recordCount()
        if count > 1 && (name != nil || json) {
            throw CLIError(
                .usage, "--count adds records under new names, one a line: it takes neither --name nor --json")
        }
        let fields = try FieldParsing.parse(command.options["field"] ?? [], for: type, now: world.options.clock.now())
        let app = try resumedApp(in: world)
        for _ in 0..<count {
            let record =
                try name.map { name in try app.add(typeName, name: name, fields: fields) }
                ?? app.add(typeName, fields: fields)

            // The record and its pending change are committed (durably) by the time add returns.
            if json {
                Terminal.json(RecordJSON(record, partition: world.partition.partition(of: typeName) ?? .userCreated))
            } else {
                Terminal.line(record.name)
            }
        }
        return .success
    }

    /// The most records one `record add --count` adds.
    static let maximumAddCount = 10_000

    /// `record add`'s `--count`: 1 when not given.
    ///
    /// - Returns: How many records to add.
    /// - Throws: ``CLIError`` `dataError` for a value that is not a whole number from 1 to ``maximumAddCount``.
    private func recordCount() throws(CLIError) -> Int {
        guard let text = command.option("count") else { return 1 }
        guard let value = Int(text), value >= 1, value <= Self.maximumAddCount else {
            throw CLIError(
                .dataError,
                "--count must be a whole number from 1 to \(Self.maximumAddCount); got '\(TextEscaping.escape(text.prefix(40)))'"
            )
        }
        return value
    }

    func recordEdit() throws -> ExitCode {
        let world = try world()
        let name = try recordName(command.arguments[0])
        let app = try resumedApp(in: world)
        guard let (existing, partition) = try app.find(name) else {
            throw CLIError(.noInput, "no record named \(name.prefix(60)) on device \(app.device.name)")
        }
        guard let type = world.partition.schema.recordType(named: existing.type) else {
            throw CLIError(.dataError, "record \(name) has type \(existing.type), which the schema does not declare")
        }
        var changes: [String: FieldValue?] = try FieldParsing.parse(
            command.options["field"] ?? [], for: type, now: world.options.clock.now()
        ).mapValues { $0 }
        for key in command.options["clear"] ?? [] {
            guard let field = type.field(named: key) else {
                throw CLIError(.dataError, "a \(type.name) has no field '\(TextEscaping.escape(key.prefix(60)))'")
            }
            guard field.isOptional else {
                throw CLIError(.dataError, "\(type.name).\(key) is required; it cannot be cleared")
            }
            changes[key] = .some(nil)
        }
        guard !changes.isEmpty else {
            throw CLIError(.usage, "nothing to change: give --field KEY=VALUE or --clear KEY")
        }
        let record = try app.edit(name, setting: changes)
        if json {
            Terminal.json(RecordJSON(record, partition: partition))
        } else {
            Terminal.line("Edited \(record.type) \(record.name)")
        }
        return .success
    }

    func recordDelete() throws -> ExitCode {
        let world = try world()
        let name = try recordName(command.arguments[0])
        let app = try resumedApp(in: world)
        let record = try app.delete(name)
        Terminal.line("Deleted \(record.type) \(record.name)")
        return .success
    }

    /// A record name as given, checked as CloudKit checks one.
    func recordName(_ text: String) throws(CLIError) -> String {
        if let problem = CloudKitNames.problem(withRecordName: text) {
            throw CLIError(.dataError, "invalid record name: \(problem)")
        }
        return text
    }

    func recordList() throws -> ExitCode {

        let world = try world()
        let app = try resumedApp(in: world, readOnly: true)
        let type = command.option("type")
        if let type, world.partition.partition(of: type) == nil {
            throw CLIError(.dataError, "unknown record type '\(TextEscaping.escape(type.prefix(60)))'")
        }
        let records =
            try app.stores.userCreated.records(ofType: type).map { ($0, Partition.userCreated) }
            + app.stores.localOnly.records(ofType: type).map { ($0, Partition.localOnly) }
        if json {
            struct List: Encodable { let records: [RecordJSON] }
            Terminal.json(List(records: records.map { RecordJSON($0.0, partition: $0.1) }))
        } else if records.isEmpty {
            Terminal.line("No records on \(app.device.name)\(type.map { " of type \($0)" } ?? "").")
        } else {
            Terminal.table(
                [["NAME", "TYPE", "PARTITION", "FIELDS"]]
                    + records.map { record, partition in
                        [
                            record.name, record.type, partition.rawValue,
                            record.fields.keys.sorted().map { "\($0)=\(Formats.human(record.fields[$0]!))" }.joined(
                                separator: " "),
                        ]
                    })
        }
        return .success
    }
}
