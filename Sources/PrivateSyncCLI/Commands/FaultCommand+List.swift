import ArgumentParsing
import PrivateCloud
import PrivateCloudFaults
import SimulatedWorld

extension FaultCommand {
    /// `privatesync fault list`.
    struct List: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: "The faults waiting, and how often each kind struck.")
        }

        @Flag(help: CommandHelp.json) var json: Bool

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            guard let faults = world.faults as? PersistentFaults else {
                throw CLIError(.internalError, "this world keeps no fault file")
            }
            let entries = try faults.entries()
            let struck = try faults.struckCounts()
            if json {
                struct EntryJSON: Encodable {
                    let kind: String
                    let account: String?
                    let device: String?
                    let record: String?
                    let remaining: Int
                    let after: Int
                    let retryAfter: Double?
                }
                struct FaultsJSON: Encodable {
                    let waiting: [EntryJSON]
                    let struck: [String: Int]
                }
                Terminal.json(
                    FaultsJSON(
                        waiting: entries.map {
                            EntryJSON(
                                kind: $0.kind.rawValue, account: $0.account?.rawValue, device: $0.device,
                                record: $0.record, remaining: $0.remaining, after: $0.after, retryAfter: $0.retryAfter)
                        }, struck: Dictionary(uniqueKeysWithValues: struck.map { ($0.key.rawValue, $0.value) })))
                return .success
            }
            if entries.isEmpty {
                Terminal.line("No faults waiting.")
            } else {
                Terminal.table(
                    [["KIND", "ACCOUNT", "DEVICE", "RECORD", "REMAINING", "AFTER", "RETRY AFTER"]]
                        + entries.map {
                            [
                                $0.kind.rawValue, $0.account?.rawValue ?? "any", $0.device ?? "any", $0.record ?? "any",
                                "\($0.remaining)", "\($0.after)", $0.retryAfter.map { "\($0)s" } ?? "-",
                            ]
                        })
            }
            if !struck.isEmpty {
                Terminal.line(
                    "Struck so far: "
                        + struck.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
            return .success
        }
    }
}
