import ArgumentParsing
import PrivateCloud
import SimulatedWorld

extension CloudRecordCommand {
    /// `privatesync cloud record list`.
    struct List: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: "The records in the container, or in one zone.")
        }

        @Option(valueName: "ID", help: CommandHelp.cloudAccount, parsing: .account) var account: AccountID
        @Option(valueName: "ZONE", help: CommandHelp.zone, parsing: .zone) var zone: ZoneID?
        @Flag(help: CommandHelp.json) var json: Bool

        nonisolated func run(_ cli: CLI) async throws -> ExitCode {
            let (world, cloud) = try cli.accountCloud(account)
            if let zone, !zone.isDefault { try cli.requireDatabase(world, cloud, for: "no zone \(zone.zoneName)") }
            let records =
                cli.hasDatabase(world, cloud) ? try await cli.cloudCall { try await cloud.records(zone: zone) } : []
            if json {
                struct List: Encodable { let records: [CloudRecordJSON] }
                Terminal.json(List(records: records.map(CloudRecordJSON.init)))
            } else if records.isEmpty {
                Terminal.line(
                    "No records in \(zone.map { "zone \($0.zoneName) of " } ?? "")\(cloud.account)'s container.")
            } else {
                Terminal.table(
                    [["NAME", "TYPE", "ZONE", "FIELDS"]]
                        + records.map { record in
                            [
                                record.recordID.recordName, record.recordType, record.recordID.zoneID.zoneName,
                                record.allKeys.compactMap { key in record[key].map { "\(key)=\(Formats.human($0))" } }
                                    .joined(separator: " "),
                            ]
                        })
            }
            return .success
        }
    }
}
