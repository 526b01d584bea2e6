import PrivateCloud

/// The server's side of a device's container calls, as the run models it: the run's ``ServerEpisodes`` (a modify
/// request over an account's low limit is refused with `limitExceeded`, and a change fetch from a token the server
/// expired with `changeTokenExpired`, on every call while the fault lasts; the requests a low limit let through are
/// counted, for invariant 11's bound), and the check of whom each request reached (invariant 14).
///
/// The check runs as the server answers, against who is signed in on the device at that moment: it sits just
/// outside the container as the world opens it (and outside a test's double of the network layer), inside everything
/// the app and the scheduler put in the way, so an account change the scheduler lands between a cycle's check of the
/// user and its request is before the request. Every request that succeeds is reported: none may succeed with no
/// account signed in; the records a save carries must be the signed-in account's (the simulation knows under which
/// account the user wrote each); and the server's stamps on the records it saved or returned, and the answer of
/// `userRecordID()`, must be the signed-in user's.
final class EpisodeContainer: ForwardingContainer {
    let base: any PrivateContainer
    private let episodes: ServerEpisodes
    private let device: String
    private let session: AccountSession
    private let scheduler: Scheduler

    /// Wraps a container.
    ///
    /// - Parameters:
    ///   - base: The container.
    ///   - episodes: The run's persistent faults.
    ///   - device: The device's name (refusals are counted by device).
    ///   - session: The device's account session: calls go to whoever is signed in.
    ///   - scheduler: The run's scheduler, which hands what each request reached to the simulation.
    init(
        base: any PrivateContainer, episodes: ServerEpisodes, device: String, session: AccountSession,
        scheduler: Scheduler
    ) {
        (self.base, self.episodes, self.device, self.session) = (base, episodes, device, session)
        self.scheduler = scheduler
    }

    func userRecordID() async throws(CloudError) -> UserRecordID {
        let account = session.account
        let user = try await base.userRecordID()
        scheduler.reached(
            device: device, account: account, request: "userRecordID", saving: [], stamped: [("the answer", user)])
        return user
    }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult {
        let lowLimit = episodes.lowLimit(for: session.account)
        if let limit = lowLimit, saving.count + deleting.count > limit {
            episodes.refused(device: device)
            throw CloudError(
                .limitExceeded, "the server takes at most \(limit) items per request for now (a low-limit episode)")
        }
        let account = session.account
        let result = try await base.modifyRecords(
            saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        if lowLimit != nil { episodes.accepted(device: device) }
        var stamps: [(name: String, user: UserRecordID)] = []
        for case (let id, .success(let record)) in result.saveResults {
            if let user = record.systemFields?.lastModifiedUserRecordID { stamps.append((id.recordName, user)) }
        }
        scheduler.reached(
            device: device, account: account, request: "modifyRecords", saving: saving.map(\.recordID.recordName),
            stamped: stamps)
        return result
    }

    func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError) -> RecordZoneChanges {
        let account = session.account
        if episodes.isExpired(token, account: account) {
            throw CloudError(.changeTokenExpired, "the server no longer honours this change token")
        }
        let changes = try await base.recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit)
        episodes.issued(changes.changeToken, account: account)
        let stamps = changes.modifications.compactMap { record in
            record.systemFields.map { (name: record.recordID.recordName, user: $0.lastModifiedUserRecordID) }
        }
        scheduler.reached(device: device, account: account, request: "recordZoneChanges", saving: [], stamped: stamps)
        return changes
    }
}
