/// How the runs of a ``DelegateSweep`` draw their steps.
///
/// A run of 60 steps with fixed weights rarely strings together the rare things a bug needs: a zone deleted, the
/// user's word, the zone made again, a second deletion heard from a refused save. Swarm testing (Groce et al.,
/// "Swarm Testing", ISSTA 2012) gives each run its own mix instead: some kinds of step left out, others drawn several
/// times as often, one reason of a zone's deletion favoured, the user quick or slow to answer. Each run then goes
/// deep into a few things rather than shallow into all, and a sweep of many seeds covers the compositions a fixed mix
/// reaches once in thousands.
public enum SweepStepMix: String, Sendable, Hashable, CaseIterable {
    /// Every run draws each kind of step with the same weights: the mix of every earlier version, so that a seed
    /// found then replays the same run.
    case even
    /// Each run draws its own weights from its seed first (of the kinds of step, of the reasons for a zone's
    /// deletion, the user's pace, outages and how busy the household's requests are), then its steps as `even` does,
    /// and may crash the app inside its own writes (``SweepCrashPoint``), fill its disk
    /// (``DelegateSweep/Configuration/fullDisks``) and cut it off the network
    /// (``DelegateSweep/Configuration/outages``). The same seed gives another run than under `even`.
    case swarm
}
