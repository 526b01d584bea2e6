/// The kinds of step, and how often each is drawn.
enum SweepStepKind: CaseIterable {
    case action, twoDevicesAct, send, fetch, tick, armCrash, crashNow, account, zoneDeletion, refusal
    /// Arms a crash inside one of the app's own writes (``SweepCrashPoint``). Last, and never drawn under
    /// ``SweepStepMix/even``, so that the even mix draws as it did before it existed.
    case armWriteCrash

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
        }
    }

    /// The weight a run of ``SweepStepMix/swarm`` scales by its own factor: the even weight, and for the kinds the
    /// even mix never draws, the weight of their nearest kin (a crash inside a write, as often as one at a request).
    var swarmWeight: Int {
        self == .armWriteCrash ? SweepStepKind.armCrash.weight : weight
    }
}
