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
    /// Requests refused as too large stay bounded: under a persistent low limit, about log2(400/limit)+1 per episode;
    /// and no record over CloudKit's size limit is ever sent, as the server would refuse it for ever.
    case boundedRefusals = 11
    /// After heal, every field holds the value the documented merge rule picks from the writes that happened.
    case mergeRule = 12
    /// Once faults stop, every device whose sync runs drains its pending changes within a bounded number of cycles
    /// its engine schedules itself (no forced sync, no user action): no cycle may record a failure as a success, or
    /// stop asking to run while changes wait.
    case liveness = 13
    /// Every container request reaches only the account signed in on its device when it is made: the records a
    /// request saves or fetches belong to that account, and nothing succeeds for a device with no account.
    case signedInAccountOnly = 14

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
        case .boundedRefusals:
            "11 (refused requests bounded: under a low limit, and no record over the size limit sent)"
        case .mergeRule: "12 (merges follow the documented rule)"
        case .liveness: "13 (pending changes drain in scheduled cycles once faults stop)"
        case .signedInAccountOnly: "14 (a request reaches only the account signed in when it is made)"
        }
    }
}

/// Why a run failed: an invariant it broke, or the run itself could not go on.
public struct SimulationFailure: Sendable, Hashable {
    /// What kind of failure it is.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// The engine broke this invariant: a finding.
        case invariant(Invariant)
        /// The run could not go on: the world could not be set up, or a step the run takes for granted failed (a
        /// full disk, an I/O error). Not a finding about the engine, and never read as one (a full disk is not a
        /// lost write).
        case couldNotRun

        /// The kind a report's number names (``number``), or `nil` for a number the simulator has no invariant for:
        /// a report read from a file may hold any number.
        ///
        /// - Parameter number: 0 for ``couldNotRun``, else an invariant's number.
        public init?(number: Int) {
            if number == 0 {
                self = .couldNotRun
            } else if let invariant = Invariant(rawValue: number) {
                self = .invariant(invariant)
            } else {
                return nil
            }
        }

        /// The number it has in reports: the invariant's, or 0.
        public var number: Int {
            switch self {
            case .invariant(let invariant): invariant.rawValue
            case .couldNotRun: 0
            }
        }

        public var description: String {
            switch self {
            case .invariant(let invariant): invariant.description
            case .couldNotRun: "0 (the run could not go on: a setup or I/O failure)"
            }
        }

        /// What the run did, as a report says it: `broke invariant 3 (...)` or `could not go on (...)`.
        public var verdict: String {
            switch self {
            case .invariant(let invariant): "broke invariant \(invariant)"
            case .couldNotRun: "could not go on (a setup or I/O failure, not an invariant)"
            }
        }
    }

    /// What kind of failure it is.
    public let kind: Kind
    /// What was found, in words.
    public let message: String
    /// The step at which it was found (the number of steps run), or the heal phase's.
    public let step: Int

    /// The invariant broken, when that is the failure.
    public var invariant: Invariant? {
        guard case .invariant(let invariant) = kind else { return nil }
        return invariant
    }

    /// Creates a failure.
    public init(_ kind: Kind, message: String, step: Int) {
        self.kind = kind
        self.message = message
        self.step = step
    }
}

/// What one seeded run did: its counts (``SimulationTally``, read as the result's own properties), its failure and
/// its trace.
@dynamicMemberLookup
public struct SimulationResult: Sendable {
    /// The seed.
    public let seed: UInt64
    /// How many devices the run had.
    public let devices: Int
    /// What the run counted: steps, simulated time, faults, crashes, checks, interleavings, refusals.
    public var tally = SimulationTally()
    /// The first invariant broken, or why the run could not go on, if either.
    public var failure: SimulationFailure?
    /// The trace: every step when a full trace was asked for, else the last steps.
    public var trace: [String] = []
    /// A hash of the whole trace, to compare runs of the same seed.
    public var traceDigest: UInt64 = 0xcbf2_9ce4_8422_2325
    /// What happened, as data for the timeline page (never part of ``traceDigest``).
    public var timeline: [TimelineEvent] = []

    /// A count of the run's ``tally``, as `result.steps`.
    public subscript<Value>(dynamicMember count: WritableKeyPath<SimulationTally, Value>) -> Value {
        get { tally[keyPath: count] }
        set { tally[keyPath: count] = newValue }
    }
}
