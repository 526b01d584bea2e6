import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a sweep found, as `privatesync simulate --json` prints it and `simulate merge` reads it back: the sums, the
/// failures with their replay commands, and (since shards are merged) which shard of which run it is.
public struct SweepReport: Codable, Sendable, Equatable {
    /// One failing seed.
    public struct Failure: Codable, Sendable, Equatable {
        /// The seed.
        public var seed: UInt64
        /// The invariant's number; 0 when the run could not go on (a setup or I/O failure, not an invariant).
        public var invariant: Int
        /// The invariant's number and name (or, for 0, why the run could not go on).
        public var invariantName: String
        /// What was found.
        public var message: String
        /// The step it was found at.
        public var step: Int
        /// The trace's last lines.
        public var lastSteps: [String]
        /// The command that replays the seed.
        public var replay: String

        /// What the seed did, as a report says it: `broke invariant 3 (...)`, or `could not go on (...)` for 0.
        public var verdict: String {
            invariant == 0
                ? "could not go on (a setup or I/O failure, not an invariant)" : "broke invariant \(invariantName)"
        }

        /// Creates a failure.
        public init(
            seed: UInt64, invariant: Int, invariantName: String, message: String, step: Int, lastSteps: [String],
            replay: String
        ) {
            self.seed = seed
            self.invariant = invariant
            self.invariantName = invariantName
            self.message = message
            self.step = step
            self.lastSteps = lastSteps
            self.replay = replay
        }
    }

    /// Which shard of a sweep a report covers: the seeds whose position leaves remainder `index` by `count`.
    public struct Shard: Codable, Sendable, Equatable {
        /// The shard, 0-based.
        public var index: Int
        /// How many shards the sweep was split into.
        public var count: Int

        /// The shard counts `--shard I/N` takes (N), and the only ones a merge accepts: a bound on what a merge
        /// lists, and on what a forged count costs it.
        public static let counts = 1...1_000_000

        /// Creates a shard.
        public init(index: Int, count: Int) {
            self.index = index
            self.count = count
        }
    }

    /// What fixes a sweep's runs besides the seeds: shards merge only when theirs are equal.
    public struct Configuration: Codable, Sendable, Equatable {
        /// The whole sweep's seed count (`--seeds N`), or `nil` for one seed.
        public var sweepSeeds: Int?
        /// The one seed (`--seed S`), or `nil` for a sweep.
        public var seed: UInt64?
        /// Steps per run before the heal.
        public var steps: Int
        /// Devices per run, or `nil` when drawn from each seed.
        public var devices: Int?
        /// `memory` or `file`.
        public var backend: String
        /// The devices' build: `app` (the app's own engine) or `cksyncengine` (``SimulationOptions/build``).
        public var build: String

        /// Creates a configuration.
        public init(
            sweepSeeds: Int?, seed: UInt64?, steps: Int, devices: Int?, backend: String,
            build: String = AppSyncEngine.appEngine.rawValue
        ) {
            self.sweepSeeds = sweepSeeds
            self.seed = seed
            self.steps = steps
            self.devices = devices
            self.backend = backend
            self.build = build
        }

        /// The sweep sizes `--seeds N` takes, and the only ones a merge accepts.
        public static let sweepSeedCounts = 1...100_000_000
        /// The steps per run `--steps N` takes, and the only ones a merge accepts.
        public static let stepCounts = 0...1_000_000
        /// The devices per run `--devices N` takes, and the only ones a merge accepts.
        public static let deviceCounts = 1...4

        /// The command that replays one seed of this configuration, trace on: built from the configuration's own
        /// values, so that what a merge prints for a failure is never text a shard's file chose.
        ///
        /// - Parameter seed: The seed to replay.
        /// - Returns: `privatesync simulate --seed S`, then each option that differs from its default, then `--trace`.
        public func replay(seed: UInt64) -> String {
            var parts = ["privatesync simulate --seed \(seed)"]
            if let devices { parts.append("--devices \(devices)") }
            if steps != SimulationOptions.defaultSteps { parts.append("--steps \(steps)") }
            if backend != ContainerBackend.memory.rawValue { parts.append("--backend \(backend)") }
            if build != AppSyncEngine.appEngine.rawValue { parts.append("--build \(build)") }
            return parts.joined(separator: " ") + " --trace"
        }

        private enum CodingKeys: String, CodingKey { case sweepSeeds, seed, steps, devices, backend, build }

        /// Reads a configuration, `build` as the app's when the key is missing (a sweep of the app's build writes none).
        ///
        /// - Parameter decoder: The decoder.
        /// - Throws: `DecodingError` for a missing key other than `build`, or a value of the wrong type.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            sweepSeeds = try container.decodeIfPresent(Int.self, forKey: .sweepSeeds)
            seed = try container.decodeIfPresent(UInt64.self, forKey: .seed)
            steps = try container.decode(Int.self, forKey: .steps)
            devices = try container.decodeIfPresent(Int.self, forKey: .devices)
            backend = try container.decode(String.self, forKey: .backend)
            build = try container.decodeIfPresent(String.self, forKey: .build) ?? AppSyncEngine.appEngine.rawValue
        }

        /// Encodes every key, `null` included, so a configuration always shows all it holds; `build` only when it is
        /// not the app's own engine, so that a sweep of the app's build writes what it wrote before the choice
        /// existed, and a reader without the key reads that build.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sweepSeeds, forKey: .sweepSeeds)
            try container.encode(seed, forKey: .seed)
            try container.encode(steps, forKey: .steps)
            try container.encode(devices, forKey: .devices)
            try container.encode(backend, forKey: .backend)
            if build != AppSyncEngine.appEngine.rawValue { try container.encode(build, forKey: .build) }
        }
    }

    /// Seeds run.
    public var seeds: Int
    /// Steps run, over all seeds.
    public var steps: Int
    /// Simulated seconds, over all seeds.
    public var simulatedSeconds: Double
    /// Faults injected, by kind's name.
    public var faults: [String: Int]
    /// Crashes simulated.
    public var crashes: Int
    /// Invariant checks made.
    public var invariantChecks: Int
    /// Actions interleaved inside other devices' cycles (`nil` in JSON from before they were counted).
    public var interleavings: Int?
    /// Requests refused by persistent server faults (`nil` in JSON from before they were counted).
    public var persistentRefusals: Int?
    /// How many seeds reached each path of ``SimulationPath/all``, by its name, reached or not (`nil` in JSON from
    /// before paths were counted).
    public var coverage: [String: Int]?
    /// Every failing seed, in seed order.
    public var failures: [Failure]
    /// The shard this report covers (`nil` in a merged report, or in JSON from before shards were recorded).
    public var shard: Shard?
    /// How many shards a merged report merged (`nil` in a shard's own report).
    public var shards: Int?
    /// The run's configuration (`nil` only in JSON from before it was recorded).
    public var configuration: Configuration?

    /// Creates a report.
    public init(
        seeds: Int, steps: Int, simulatedSeconds: Double, faults: [String: Int], crashes: Int, invariantChecks: Int,
        interleavings: Int? = nil, persistentRefusals: Int? = nil, coverage: [String: Int]? = nil,
        failures: [Failure], shard: Shard?, shards: Int? = nil, configuration: Configuration?
    ) {
        self.coverage = coverage
        self.interleavings = interleavings
        self.persistentRefusals = persistentRefusals
        self.seeds = seeds
        self.steps = steps
        self.simulatedSeconds = simulatedSeconds
        self.faults = faults
        self.crashes = crashes
        self.invariantChecks = invariantChecks
        self.failures = failures
        self.shard = shard
        self.shards = shards
        self.configuration = configuration
    }
}
