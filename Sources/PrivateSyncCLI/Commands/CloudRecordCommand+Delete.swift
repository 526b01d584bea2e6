import ArgumentParsing
import PrivateCloud
import SimulatedWorld

extension CloudRecordCommand {
    /// `privatesync cloud record delete`.
    struct Delete: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "delete", abstract: "Delete a record from the container.")
        }

        @Argument(valueName: "NAME", help: "The record's name.", parsing: .recordName) var name: String
        @Option(valueName: "ID", help: CommandHelp.cloudAccount, parsing: .account) var account: AccountID
        @Option(valueName: "ZONE", help: CommandHelp.zone, parsing: .zone) var zone: ZoneID?

        nonisolated func run(_ cli: CLI) async throws -> ExitCode {
            let (world, cloud) = try cli.accountCloud(account)
            try cli.requireDatabase(world, cloud, for: "no record named \(name)")
            try await cli.cloudCall { try await cloud.delete(name, zone: zone) }
            Terminal.line("Deleted \(name) from \((zone ?? AccountCloud.defaultZone).zoneName) of \(cloud.account)")
            return .success
        }
    }
}
