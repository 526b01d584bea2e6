import ArgumentParsing
import PrivateCloud
import SimulatedWorld

extension CloudZoneCommand {
    /// `privatesync cloud zone delete`.
    struct Delete: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "delete",
                abstract:
                    "Delete a zone and its records (reported as deleted; calls on it then fail with zoneNotFound).")
        }

        @Argument(valueName: "ZONE", help: "The zone.", parsing: .zone) var zone: ZoneID
        @Option(valueName: "ID", help: CommandHelp.cloudAccount, parsing: .account) var account: AccountID

        nonisolated func run(_ cli: CLI) async throws -> ExitCode {
            let (world, cloud) = try cli.accountCloud(account)
            if zone.isDefault { throw CLIError(.dataError, "the default zone cannot be deleted") }
            try cli.requireDatabase(world, cloud, for: "no zone \(zone.zoneName)")
            try await cli.cloudCall { try await cloud.deleteZone(zone) }
            Terminal.line("Deleted zone \(zone.zoneName) and its records from \(cloud.account)'s container")
            return .success
        }
    }
}
