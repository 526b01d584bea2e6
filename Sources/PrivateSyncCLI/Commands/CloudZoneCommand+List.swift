import ArgumentParsing
import PrivateCloud
import SimulatedWorld

extension CloudZoneCommand {
    /// `privatesync cloud zone list`.
    struct List: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: "The zones, the default zone first.")
        }

        @Option(valueName: "ID", help: CommandHelp.cloudAccount, parsing: .account) var account: AccountID
        @Flag(help: CommandHelp.json) var json: Bool

        nonisolated func run(_ cli: CLI) async throws -> ExitCode {
            let (world, cloud) = try cli.accountCloud(account)
            let zones =
                cli.hasDatabase(world, cloud) ? try await cli.cloudCall { try await cloud.zones() } : [ZoneID.default]
            if json {
                struct List: Encodable { let zones: [String] }
                Terminal.json(List(zones: zones.map(\.zoneName)))
            } else {
                for zone in zones { Terminal.line(zone.zoneName) }
            }
            return .success
        }
    }
}
