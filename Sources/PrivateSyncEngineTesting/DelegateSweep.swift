#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Seeded, fault-injecting sweeps of a team's own CKSyncEngine-shaped delegate, as FoundationDB and TigerBeetle test
/// their code: each seed is one run of several devices on one or more accounts over a shared fake container, with
/// the user's actions, syncs (automatic and manual), faults, crashes and relaunches of a device at any request or
/// event, sign-ins, sign-outs and switches, zone deletions with each reason, and one device's actions landing in the
/// middle of another's request. After each run the invariants of ``DelegateSweepFailure/Invariant`` are checked; a
/// seed replays the run exactly.
///
/// ```swift
/// let sweep = DelegateSweep(
///     makeApp: { device in try await MyApp(device) },            // from the device's folder and its saved state
///     actions: [addContact, renameContact, deleteContact],
///     serverSnapshot: { records in Dictionary(uniqueKeysWithValues: records.map { … }) })
/// let report = await sweep.sweep(seeds: 0..<300)
/// #expect(report.failures.isEmpty, "\(report)")
/// ```
///
/// Nothing runs in the background: every device's engine is driven by the sweep, on one scheduler and one manual
/// clock, and every random choice, the app's included, comes from the seed.
public struct DelegateSweep<App: SweptApp>: Sendable {
    /// How a run is made.
    public struct Configuration: Sendable {
        /// How many devices a run has (drawn from the range by the seed).
        public var devices: ClosedRange<Int> = 2...3
        /// The accounts the devices sign into.
        public var accounts: [String] = ["alice", "bob"]
        /// The steps of a run, before the heal.
        public var steps = 60
        /// The rounds of the heal (every device sends and fetches once a round) before quiescence is due.
        public var healRounds = 8
        /// Where the accounts' databases live; in memory by default.
        public var storage: Storage = .memory
        /// The probability that a device's request runs another device's step first, in its middle (a run of the
        /// swarm mix may scale it: ``outages``).
        public var interleaving = 0.15
        /// How each run draws its steps: with the same weights (`even`, the default, which replays the seeds of
        /// earlier versions), or with weights of its own drawn from its seed (`swarm`: deeper into fewer things).
        public var stepMix: SweepStepMix = .even
        /// Whether a run of the swarm mix fills a device's disk now and then, in place of a crash inside a write it
        /// would arm: a few of the app's writes fail as on a full disk while the process lives on
        /// (``SweepCrashPoint/refusesDurableWrite()``). On by default; off replays the swarm's runs as they were
        /// before disks filled (the seeds found then).
        public var fullDisks = true
        /// Whether a run of the swarm mix may draw outages (a device, or a household, cut off the network for a
        /// spell; devices first opened offline; a household back online sending together) and requests interleaved
        /// three times as often as ``interleaving``. Drawn after every other draw of the mix. On by default; off
        /// replays the swarm's runs as they were before outages (the seeds found then).
        public var outages = true
        /// Given each line of the timeline as it happens, to watch a seed that does not end; `nil` by default.
        public var trace: (@Sendable (String) -> Void)?

        /// Where a run's databases live.
        public enum Storage: Sendable, Hashable {
            /// In memory.
            case memory
            /// In SQLite files, under a fresh folder for each seed.
            case files
        }

        /// The defaults: 2 or 3 devices, alice and bob, 60 steps, in memory.
        public init() {}
    }

    /// How a run is made.
    public let configuration: Configuration
    let makeApp: @Sendable (SweepDevice) async throws -> App
    let actions: [SweepAction<App>]
    let serverSnapshot: @Sendable ([PSRecord]) -> [String: String]

    /// Creates a sweep of a team's app.
    ///
    /// - Parameters:
    ///   - configuration: How a run is made.
    ///   - makeApp: Builds the app on a device's launch: from what it persisted in the device's folder, with an
    ///     engine over the device's database and scheduler.
    ///   - actions: What a user may do; each says what it wrote.
    ///   - serverSnapshot: What the user would see of an account's records on the server: the same keys and
    ///     contents as the app's ``SweptApp/snapshot()``.
    public init(
        configuration: Configuration = Configuration(),
        makeApp: @escaping @Sendable (SweepDevice) async throws -> App, actions: [SweepAction<App>],
        serverSnapshot: @escaping @Sendable ([PSRecord]) -> [String: String]
    ) {
        self.configuration = configuration
        self.makeApp = makeApp
        self.actions = actions
        self.serverSnapshot = serverSnapshot
    }

    /// Runs one seed and checks it.
    ///
    /// - Parameter seed: The seed.
    /// - Returns: What the run did, and its failure if it broke an invariant.
    public func run(seed: UInt64) async -> (report: DelegateSweepReport, failure: DelegateSweepFailure?) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "privatesync-sweep-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let run = try SweepRun(sweep: self, seed: seed, folder: folder)
            return await run.run()
        } catch {
            var report = DelegateSweepReport()
            report.seeds = 1
            let failure = DelegateSweepFailure(
                seed: seed, invariant: .appFailed, message: "the run could not start: \(error)", timeline: [])
            report.failures = [failure]
            return (report, failure)
        }
    }

    /// Runs seeds in order until one fails: what a test of a flawed delegate, or a bisection, wants.
    ///
    /// - Parameter seeds: The seeds.
    /// - Returns: The first failure, or `nil` when every seed passes.
    public func firstFailure(seeds: Range<UInt64>) async -> DelegateSweepFailure? {
        for seed in seeds {
            if let failure = await run(seed: seed).failure { return failure }
        }
        return nil
    }

    /// Runs seeds, one after the other, and merges what they found.
    ///
    /// - Parameters:
    ///   - seeds: The seeds.
    ///   - shard: Only the seeds of this shard (`index` of `count`, by seed modulo `count`), for a CI matrix.
    /// - Returns: The counts and every failure.
    public func sweep(seeds: Range<UInt64>, shard: (index: Int, count: Int)? = nil) async -> DelegateSweepReport {
        var report = DelegateSweepReport()
        for seed in seeds {
            if let shard, Int(seed % UInt64(max(1, shard.count))) != shard.index { continue }
            report.merge(await run(seed: seed).report)
        }
        return report
    }
}
