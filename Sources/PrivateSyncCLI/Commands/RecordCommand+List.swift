import ArgumentParsing
import DeviceStore
import SimulatedWorld

extension RecordCommand {
    /// `privatesync record list`.
    struct List: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: "List the records on a device.")
        }

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String
        @Option(valueName: "TYPE", help: "Only records of this type.") var type: String?
        @Flag(help: CommandHelp.json) var json: Bool

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            let app = try cli.resumedApp(device, in: world, readOnly: true)
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
                                record.fields.keys.sorted().map { "\($0)=\(Formats.human(record.fields[$0]!))" }
                                    .joined(separator: " "),
                            ]
                        })
            }
            return .success
        }
    }
}
