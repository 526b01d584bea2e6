import Synchronization

/// One launch of one device's handle on the cloud, in a ``DelegateSweep``: it lets the sweep crash the device at a
/// request (before it reaches the server, or after the server applied it), run another device's step in the middle
/// of it, and refuse every request once the launch is over (a crashed process makes none).
final class SweepContainer: InterceptingContainer {
    let base: any PrivateContainer
    let device: Int
    let generation: Int
    /// Weak: the run holds its devices' containers, and a container that held its run kept every run of a sweep
    /// alive, with its apps and their open files (the partition mirror's sweep ran out of file descriptors).
    private weak let hooks: (any SweepHooks)?
    private let dead = Mutex(false)

    init(base: any PrivateContainer, device: Int, generation: Int, hooks: SweepHooks) {
        self.base = base
        self.device = device
        self.generation = generation
        self.hooks = hooks
    }

    var identifier: ContainerIdentifier { base.identifier }

    /// Whether the launch this handle belongs to is over.
    var isDead: Bool { dead.withLock { $0 } }

    /// Ends the launch: every later request of it fails, as a dead process's would never be made.
    func kill() {
        dead.withLock { $0 = true }
    }

    func intercept(_ call: InterceptedCall) async throws(CloudError) -> InterceptedCall.Reply {
        if case .accountStatus = call { return try await base.perform(call) }
        try checkAlive()
        // Judged when the device makes the request: a deletion in another device's step run below lands while it is
        // in flight, which the device cannot know of.
        if case .saveZones = call {
            hooks?.creatingZone(for: AccountSession.requestedFor, device: device, generation: generation)
        }
        if await hooks?.beforeRequest(device: device, generation: generation) == true {
            throw CloudError(.networkFailure, "the device crashed before its request left")
        }
        try checkAlive()
        // Which values a request's deletes take from the server is the server's order, not the users': a delete
        // takes whatever the name holds when it lands (the history's rule for a name made again).
        let serverBefore = hooks?.serverItems(before: call)
        let reply: InterceptedCall.Reply
        do {
            defer { if let serverBefore { hooks?.noteServerChanges(since: serverBefore) } }
            reply = try await base.perform(call)
        } catch {
            hooks?.heard(
                Self.causes(of: error), for: AccountSession.requestedFor, device: device, generation: generation)
            if Self.findsZoneMissing(error) {
                hooks?.foundZoneMissing(for: AccountSession.requestedFor, device: device, generation: generation)
            }
            throw error
        }
        if case .modified(let result) = reply {
            let saves = result.saveResults.values.compactMap { result -> CloudError? in
                if case .failure(let error) = result { error } else { nil }
            }
            let deletes = result.deleteResults.values.compactMap { result -> CloudError? in
                if case .failure(let error) = result { error } else { nil }
            }
            hooks?.heard(
                Set((saves + deletes).flatMap(Self.causes(of:))), for: AccountSession.requestedFor, device: device,
                generation: generation)
            if saves.contains(where: Self.findsZoneMissing) {
                hooks?.foundZoneMissing(for: AccountSession.requestedFor, device: device, generation: generation)
            }
        }
        if await hooks?.afterRequest(device: device, generation: generation) == true {
            throw CloudError(.networkFailure, "the device crashed after the server applied its request")
        }
        return reply
    }

    /// What an error is a cause for (``SweptStatus/Cause``, and ``SweptStatus/Cause/transient`` for waiting): what a
    /// status may name once this device met it.
    ///
    /// - Parameter error: The error a request or one of its items met.
    /// - Returns: The causes, often none.
    static func causes(of error: CloudError) -> Set<SweptStatus.Cause> {
        switch error.code {
        case .quotaExceeded: [.quotaExceeded]
        case .accountTemporarilyUnavailable: [.accountUnavailable]
        case .userDeletedZone: [.userDeletedZone]
        case .networkFailure, .networkUnavailable, .serviceUnavailable, .requestRateLimited, .zoneBusy: [.transient]
        case .partialFailure:
            Set(error.partialErrors.values.flatMap(causes(of:)))
        default: []
        }
    }

    /// Whether an error says the zone is not there (`zoneNotFound`, of the request or of one of its items): an app's
    /// deletion, an encrypted-data reset and a zone never created all answer so.
    ///
    /// - Parameter error: The error a request or one of its items met.
    /// - Returns: Whether it says so.
    static func findsZoneMissing(_ error: CloudError) -> Bool {
        error.code == .zoneNotFound || error.partialErrors.values.contains { $0.code == .zoneNotFound }
    }

    private func checkAlive() throws(CloudError) {
        if isDead { throw CloudError(.networkUnavailable, "the device crashed: its process makes no request") }
    }
}

/// What a ``SweepContainer`` asks of its run around each request: whether to crash, and a chance to run another
/// device's step first.
protocol SweepHooks: AnyObject, Sendable {
    /// Before a request: may run another device's step; returns whether the device crashes here.
    func beforeRequest(device: Int, generation: Int) async -> Bool
    /// After the server answered: returns whether the device crashes here, its answer lost.
    func afterRequest(device: Int, generation: Int) async -> Bool
    /// A request of the device, made for `user` (the engine's account when it asked, or `nil` when unknown), met
    /// errors that are causes for a pause or a wait: a status may name them from now on, while that account is
    /// signed in.
    func heard(_ causes: Set<SweptStatus.Cause>, for user: UserRecordID?, device: Int, generation: Int)
    /// A request of the device, made for `user`, found its zone missing (`zoneNotFound`).
    func foundZoneMissing(for user: UserRecordID?, device: Int, generation: Int)
    /// A request of the device, made for `user`, is about to create a zone.
    func creatingZone(for user: UserRecordID?, device: Int, generation: Int)
    /// Every account's items on the server, as the app shows them, before a request whose changes the history
    /// follows (one that deletes; one that saves, once a name was made again).
    ///
    /// - Parameter request: The request about to be made.
    /// - Returns: The items, by account; `nil` for a request the history does not follow.
    func serverItems(before request: InterceptedCall) -> [String: [String: String]]?
    /// The request was made (applied or not): what changed on the server since `before` is its doing.
    ///
    /// - Parameter before: What ``serverItems(before:)`` read before it.
    func noteServerChanges(since before: [String: [String: String]])
}
