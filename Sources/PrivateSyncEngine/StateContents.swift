/// The engine's state as a value: what ``PSSyncEngine/State`` guards with its lock and serializes.
struct StateContents: Sendable {
    /// The user record name of the account the state belongs to; `nil` for none signed in.
    var currentUser: String?
    /// Whether the engine has read the account at least once (a first launch has not).
    var userKnown = false
    var databaseToken: ChangeToken?
    var zoneTokens: [PSRecordZone.ID: ChangeToken] = [:]
    var unfetchedZones: [PSRecordZone.ID] = []
    var pendingRecordZoneChanges = PendingList<PSSyncEngine.PendingRecordZoneChange, PSRecord.ID>(key: \.recordID)
    var pendingDatabaseChanges = PendingList<PSSyncEngine.PendingDatabaseChange, PSRecordZone.ID>(key: \.zoneID)
    var hasPendingUntrackedChanges = false
    /// The revision the next added change gets: every add takes a later one, so a send that read the pending lists
    /// at revision R removes only changes added before R, and an edit made since stays.
    var nextRevision: UInt64 = 1
    /// Whether anything changed since the last state update was delivered.
    var isDirty = false

    mutating func add(_ change: PSSyncEngine.PendingRecordZoneChange) {
        pendingRecordZoneChanges.add(change, revision: takeRevision())
    }

    mutating func add(_ change: PSSyncEngine.PendingDatabaseChange) {
        pendingDatabaseChanges.add(change, revision: takeRevision())
    }

    /// The revision of a change added now.
    mutating func takeRevision() -> UInt64 {
        defer { nextRevision += 1 }
        return nextRevision
    }

    // MARK: Zones

    mutating func noteUnfetched(_ zoneID: PSRecordZone.ID) {
        if !unfetchedZones.contains(zoneID) { unfetchedZones.append(zoneID) }
    }

    mutating func forgetZone(_ zoneID: PSRecordZone.ID) {
        zoneTokens[zoneID] = nil
        unfetchedZones.removeAll { $0 == zoneID }
    }

    /// What an account change leaves: nothing pending, no token, the new user; as CloudKit resets its engine.
    mutating func reset(forUser user: String?) {
        self = StateContents(currentUser: user, userKnown: true, nextRevision: nextRevision, isDirty: true)
    }
}
