public import PrivateCloud

/// The invariants a run checks.
public enum Invariant: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No record of a local-only type is ever in any container.
    case localOnlyStaysHome = 1
    /// No record written under one account is ever in another account's container.
    case accountsNeverMix = 2
    /// No acknowledged write is lost: on its device, and after heal in its account's container if sync is on.
    case noAcknowledgedWriteLost = 3
    /// After heal, every device on an account with sync on holds exactly the container's user-created records.
    case convergence = 4
    /// Status never reads on while sync cannot run; a pause carries the reason actually injected.
    case honestStatus = 5
    /// The engine's counters and events agree with what the container saw.
    case countersAgree = 6
    /// Nothing written on a device after the switch went off or the account signed out reaches any container (until
    /// the device may sync again).
    case nothingLeavesWhenOff = 7
    /// A deletion of the app's data by the user is never undone without a `sync on` given after a device learned of
    /// it.
    case deletionNeedsConsent = 8
    /// After heal, record times agree across devices, and nothing stays pending.
    case healedTimesAgree = 9
    /// No device uploads a record the server already accepted from it, unchanged.
    case noRedundantUpload = 10
    /// Requests refused as too large stay bounded under a persistent low limit.
    case boundedRefusals = 11
    /// After heal, every field holds the value the documented merge rule picks from the writes that happened.
    case mergeRule = 12

    public var description: String {
        switch self {
        case .localOnlyStaysHome: "1 (no local-only record in any container)"
        case .accountsNeverMix: "2 (no record in another account's container)"
        case .noAcknowledgedWriteLost: "3 (no acknowledged write lost)"
        case .convergence: "4 (convergence after heal)"
        case .honestStatus: "5 (honest status)"
        case .countersAgree: "6 (engine counters agree with the container)"
        case .nothingLeavesWhenOff: "7 (nothing leaves a device after sync off or sign-out)"
        case .deletionNeedsConsent: "8 (a deletion of the app's data is undone only with consent)"
        case .healedTimesAgree: "9 (record times agree and nothing pending after heal)"
        case .noRedundantUpload: "10 (no unchanged record uploaded again)"
        case .boundedRefusals: "11 (refused requests bounded under a low limit)"
        case .mergeRule: "12 (merges follow the documented rule)"
        }
    }
}

/// An invariant broken in a run.
public struct InvariantFailure: Sendable, Hashable {
    /// The invariant.
    public let invariant: Invariant
    /// What was found, in words.
    public let message: String
    /// The step at which it was found (the number of steps run), or the heal phase's.
    public let step: Int
}

/// What one seeded run did.
public struct SimulationResult: Sendable {
    /// The seed.
    public let seed: UInt64
    /// How many devices the run had.
    public let devices: Int
    /// Steps run (before and during heal).
    public var steps = 0
    /// Simulated seconds that passed.
    public var simulatedSeconds = 0.0
    /// Faults injected, by kind.
    public var faults: [FaultKind: Int] = [:]
    /// Crashes simulated.
    public var crashes = 0
    /// Individual invariant checks made.
    public var invariantChecks = 0
    /// Actions the scheduler ran between two container requests of a cycle (user actions and other devices' cycles).
    public var interleavings = 0
    /// Requests a low limit or an expired token refused, over the run's persistent faults.
    public var persistentRefusals = 0
    /// The first invariant broken, if any.
    public var failure: InvariantFailure?
    /// The trace: every step when a full trace was asked for, else the last steps.
    public var trace: [String] = []
    /// A hash of the whole trace, to compare runs of the same seed.
    public var traceDigest: UInt64 = 0xcbf2_9ce4_8422_2325
    /// What happened, as data for the timeline page (never part of ``traceDigest``).
    public var timeline: [TimelineEvent] = []
}
