/// The kinds of step, and how often each is drawn under ``SweepStepMix/even``.
enum SweepStepKind: CaseIterable {
    case action, twoDevicesAct, send, fetch, tick, armCrash, crashNow, account, zoneDeletion, refusal

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
        }
    }
}
