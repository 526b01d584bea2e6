import ArgumentParsing
import PrivateCloud
import SimulatedWorld

extension CloudRecordCommand {
    /// `privatesync cloud record put`.
    struct Put: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "put", abstract: "Create a record (and its zone, when missing); prints its name.",
                examples: [
                    "privatesync cloud record put --account alice --type CheckIn --name c1 --field mood=4 --field date=now",
                    "privatesync cloud record put --account alice --type FutureThing --field weight:double=3",
                ])
        }

        @Option(valueName: "ID", help: CommandHelp.cloudAccount, parsing: .account) var account: AccountID
        @Option(valueName: "TYPE", help: "The record type (any CloudKit identifier).", parsing: .cloudRecordType)
        var type: String
        @Option(valueName: "NAME", help: "The record's name (default: a new UUID).", parsing: .recordName)
        var name: String?
        @Option(valueName: "ZONE", help: CommandHelp.zone, parsing: .zone) var zone: ZoneID?
        @Option(valueName: "KEY=VALUE", help: CommandHelp.cloudField) var field: [String]
        @Flag(help: CommandHelp.allowReserved) var allowReserved: Bool
        @Flag(help: CommandHelp.json) var json: Bool

        nonisolated func run(_ cli: CLI) async throws -> ExitCode {
            // Value files are read before any file of the world is open (see FieldAssignment).
            let assignments = try FieldAssignment.readForContainer(field, allowReserved: allowReserved)
            let (world, cloud) = try cli.accountCloud(account)
            let fields = try FieldParsing.parseForContainer(
                assignments, declared: world.partition.schema.recordType(named: type), typeName: type,
                now: world.options.clock.now())
            let record = try await cli.cloudCall {
                try await cloud.put(type: type, name: name, zone: zone, fields: fields)
            }
            if json {
                Terminal.json(CloudRecordJSON(record))
            } else {
                Terminal.line(record.recordID.recordName)
            }
            return .success
        }
    }
}
