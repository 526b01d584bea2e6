import ArgumentParsing
import PrivateCloud
import SimulatedWorld

extension CloudRecordCommand {
    /// `privatesync cloud record edit`.
    struct Edit: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "edit", abstract: "Change fields of a record in the container.",
                discussion:
                    "With --stale the save is based on a change tag the server no longer holds: it meets serverRecordChanged (14), which is reported, and the record is then saved over the server's with allKeys, as a client that insists on its version does."
            )
        }

        @Argument(valueName: "NAME", help: "The record's name.", parsing: .recordName) var name: String
        @Option(valueName: "ID", help: CommandHelp.cloudAccount, parsing: .account) var account: AccountID
        @Option(valueName: "ZONE", help: CommandHelp.zone, parsing: .zone) var zone: ZoneID?
        @Option(valueName: "KEY=VALUE", help: CommandHelp.cloudField) var field: [String]
        @Flag(help: "Save from an outdated copy (an old change tag).") var stale: Bool
        @Flag(help: CommandHelp.allowReserved) var allowReserved: Bool
        @Flag(help: CommandHelp.json) var json: Bool

        nonisolated func run(_ cli: CLI) async throws -> ExitCode {
            // Value files are read before any file of the world is open (see FieldAssignment).
            let assignments = try FieldAssignment.readForContainer(field, allowReserved: allowReserved)
            let (world, cloud) = try cli.accountCloud(account)
            try cli.requireDatabase(world, cloud, for: "no record named \(name)")
            // The record's type decides how declared fields are read, so it is fetched first (reading changes nothing).
            let existing = try await cli.cloudCall {
                try await cloud.container.record(
                    for: RecordID(uncheckedName: name, zoneID: zone ?? AccountCloud.defaultZone))
            }
            let fields = try FieldParsing.parseForContainer(
                assignments, declared: world.partition.schema.recordType(named: existing.recordType),
                typeName: existing.recordType, now: world.options.clock.now())
            guard !fields.isEmpty || stale else {
                throw CLIError(
                    .usage, "nothing to change: give --field KEY=VALUE (or --stale to save an outdated copy)")
            }
            let outcome = try await cli.cloudCall {
                try await cloud.edit(name, zone: zone, fields: fields, stale: stale)
            }
            if json {
                struct EditJSON: Encodable {
                    let record: CloudRecordJSON
                    let conflict: ConflictJSON?
                }
                struct ConflictJSON: Encodable {
                    let code: Int
                    let name: String
                    let serverChangeTag: String?
                }
                Terminal.json(
                    EditJSON(
                        record: CloudRecordJSON(outcome.record),
                        conflict: outcome.conflict.map {
                            ConflictJSON(
                                code: $0.code.rawValue, name: $0.code.name,
                                serverChangeTag: $0.serverRecord?.recordChangeTag)
                        }))
                return .success
            }
            if let conflict = outcome.conflict {
                Terminal.line(
                    "\(name): the stale save met \(conflict.code.name) (\(conflict.code.rawValue)): the server held change tag "
                        + "\(conflict.serverRecord?.recordChangeTag ?? "?"); saved over it with allKeys")
            }
            Terminal.line(
                "Edited \(outcome.record.recordType) \(name) in \(outcome.record.recordID.zoneID.zoneName) of "
                    + "\(cloud.account) (change tag \(outcome.record.recordChangeTag ?? "?"))")
            return .success
        }
    }
}
