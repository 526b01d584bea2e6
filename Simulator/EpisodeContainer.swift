import PrivateCloud

/// Puts a device's container calls through the run's ``ServerEpisodes``: a modify request over an account's low
/// limit is refused with `limitExceeded`, and a change fetch from a token the server expired with
/// `changeTokenExpired`, on every call while the fault lasts.
final class EpisodeContainer: ForwardingContainer {
    let base: any PrivateContainer
    private let episodes: ServerEpisodes
    private let device: String
    private let session: AccountSession

    /// Wraps a container.
    ///
    /// - Parameters:
    ///   - base: The container.
    ///   - episodes: The run's persistent faults.
    ///   - device: The device's name (refusals are counted by device).
    ///   - session: The device's account session: calls go to whoever is signed in.
    init(base: any PrivateContainer, episodes: ServerEpisodes, device: String, session: AccountSession) {
        self.base = base
        self.episodes = episodes
        self.device = device
        self.session = session
    }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult {
        if let limit = episodes.lowLimit(for: session.account), saving.count + deleting.count > limit {
            episodes.refused(device: device)
            throw CloudError(
                .limitExceeded, "the server takes at most \(limit) items per request for now (a low-limit episode)")
        }
        return try await base.modifyRecords(
            saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
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
        return changes
    }
}
