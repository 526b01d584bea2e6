/// The kinds of step, and how often each is drawn.
enum SweepStepKind: CaseIterable {
    case action, twoDevicesAct, send, fetch, tick, armCrash, crashNow, account, zoneDeletion, refusal
    /// Arms a crash inside one of the app's own writes (``SweepCrashPoint``). Last, and never drawn under
    /// ``SweepStepMix/even``, so that the even mix draws as it did before it existed.
    case armWriteCrash
    /// Cuts a device, or every device of its account (a household's network), off the network for a spell
    /// (``SweepFaults/cutOff(_:until:)``): an app launched, or told its account changed, in that spell cannot fetch,
    /// and the user's writes pile up until it ends. After ``armWriteCrash``, and never drawn under
    /// ``SweepStepMix/even``, for the same reason.
    case outage

    /// How often the kind is drawn under ``SweepStepMix/even``, against the others.
    var weight: Int {
        switch self {
        case .action: 30
        case .twoDevicesAct: 6
        case .send: 12
        case .fetch: 12
        case .tick: 14
        case .armCrash: 6
        case .crashNow: 2
        case .account: 5
        case .zoneDeletion: 3
        case .refusal: 1
        case .armWriteCrash: 0
        case .outage: 0
        }
    }

    /// The weight a run of ``SweepStepMix/swarm`` scales by its own factor: the even weight, and for the kinds the
    /// even mix never draws, the weight of a crash at a request (their nearest kin: a crash inside a write; an outage,
    /// as rare).
    var swarmWeight: Int {
        switch self {
        case .armWriteCrash, .outage: SweepStepKind.armCrash.weight
        default: weight
        }
    }
}
