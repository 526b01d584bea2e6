import ArgumentParsing
import PrivateCloud
import PrivateCloudFaults
import SimulatedWorld

extension FaultCommand {
    /// `privatesync fault inject`.
    struct Inject: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "inject", abstract: "Add a fault.",
                examples: [
                    "privatesync fault inject network-unavailable --count 3",
                    "privatesync fault inject partial-failure --device phone --record checkin-1",
                    "privatesync fault inject delayed-delivery --device tablet --count 2",
                ])
        }

        @Argument(valueName: "KIND", help: "The kind of fault.", parsing: .cases) var kind: FaultKind
        @Option(valueName: "ID", help: "Only calls for this account (default: any).", parsing: .account)
        var account: AccountID?
        @Option(valueName: "NAME", help: "Only calls from this device (default: any).") var device: String?
        @Option(
            valueName: "NAME",
            help:
                "Only calls naming this record; the item a per-item fault fails, the change a delayed delivery withholds.",
            parsing: .recordName)
        var record: String?
        @Option(
            valueName: "N", help: "How many calls it strikes (default 1).",
            parsing: .wholeNumber(in: 1...PersistentFaults.maximumCount))
        var count: Int?
        @Option(
            valueName: "N",
            help: "Let the first N calls it applies to through, then strike (default 0; never counts accountStatus).",
            parsing: .wholeNumber(in: 0...PersistentFaults.maximumCount))
        var after: Int?
        @Option(
            valueName: "SECONDS", help: "The retry-after it carries, where one applies.",
            parsing: .seconds(upTo: 86_400))
        var retryAfter: Double?

        func run(_ cli: CLI) throws -> ExitCode {
            let world = try cli.world()
            guard let faults = world.faults as? PersistentFaults else {
                throw CLIError(.internalError, "this world keeps no fault file")
            }
            let count = self.count ?? 1
            let after = self.after ?? 0
            // A device aimed at must exist: a misspelt name would otherwise wait for calls that never come.
            let device = try self.device.map { name throws in try world.device(name).name }
            try faults.inject(
                Fault(kind, retryAfter: retryAfter, record: record), account: account, device: device, count: count,
                after: after)
            var aim = [account.map { "account \($0)" } ?? "any account"]
            if let device { aim.append("device \(device)") }
            if let record { aim.append("record \(record)") }
            Terminal.line(
                "Injected \(kind) for the next \(count) call(s) it applies to"
                    + (after > 0 ? " after letting \(after) through" : "") + ", for " + aim.joined(separator: ", "))
            return .success
        }
    }
}
