import ArgumentParsing
import DeviceStore
import PrivateCloud
import SimulatedWorld

extension RecordCommand {
    /// `privatesync record edit`.
    struct Edit: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "edit", abstract: "Change fields of a record.")
        }

        @OptionGroup var target: RecordOnDevice
        @Option(valueName: "KEY=VALUE", help: "A field value.") var field: [String]
        @Option(valueName: "KEY", help: "Remove an optional field.") var clear: [String]
        @Flag(help: CommandHelp.json) var json: Bool

        func run(_ cli: CLI) throws -> ExitCode {
            // Value files are read before any file of the world is open (see FieldAssignment).
            let assignments = try FieldAssignment.read(field)
            let world = try cli.world()
            let app = try cli.resumedApp(target.device, in: world)
            guard let (existing, partition) = try app.find(target.name) else {
                throw CLIError(.noInput, "no record named \(target.name.prefix(60)) on device \(app.device.name)")
            }
            guard let type = world.partition.schema.recordType(named: existing.type) else {
                throw CLIError(
                    .dataError, "record \(target.name) has type \(existing.type), which the schema does not declare")
            }
            var changes: [String: FieldValue?] = try FieldParsing.parse(
                assignments, for: type, now: world.options.clock.now()
            ).mapValues { $0 }
            for key in clear {
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
            let record = try app.edit(target.name, setting: changes)
            if json {
                Terminal.json(RecordJSON(record, partition: partition))
            } else {
                Terminal.line("Edited \(record.type) \(record.name)")
            }
            return .success
        }
    }
}
