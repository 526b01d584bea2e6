/// The kinds of ``SweepMergeError``. Numbered from 1 in the order declared; a new kind is added at the end, so a
/// number never changes.
public enum SweepMergeErrorCode: Int, Sendable, Hashable {
    /// A file is not the JSON of `simulate --json`, or lacks its shard or configuration.
    case notAShardReport = 1
    /// The files come from sweeps split into different numbers of shards.
    case differentShardCounts
    /// The files come from runs of different configurations (seed count, steps, devices, backend, seed).
    case differentConfigurations
    /// Two files are the same shard.
    case repeatedShard
    /// Some shard of the sweep is not among the files.
    case missingShard
    /// A shard ran another number of seeds than its share of the sweep (an interrupted or altered run).
    case wrongSeedCount
    /// A file holds a value no run writes: a negative count, simulated seconds not finite, a fault kind, invariant,
    /// backend the simulator does not have, a failing seed its shard does not run.
    case invalidValue
    /// The shards' counts add up past the largest count (`Int.max`), or their simulated seconds past the largest
    /// finite number.
    case sumOverflow
}

/// Why shard reports cannot be merged: each names the files concerned.
public typealias SweepMergeError = CodedError<SweepMergeErrorCode>
