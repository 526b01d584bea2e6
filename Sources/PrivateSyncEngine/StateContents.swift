/// The engine's state as a value: what ``PSSyncEngine/State`` guards with its lock and serializes.
struct StateContents: Sendable {
    /// A pending change and the revision it was last added at: a send removes it only at the revision it sent.
    struct Entry<Change: Sendable>: Sendable {
        var change: Change
        var revision: UInt64
    }

    /// The user record name of the account the state belongs to; `nil` for none signed in.
    var currentUser: String?
    /// Whether the engine has read the account at least once (a first launch has not).
    var userKnown = false
    var databaseToken: ChangeToken?
    var zoneTokens: [PSRecordZone.ID: ChangeToken] = [:]
    var unfetchedZones: [PSRecordZone.ID] = []
    var pendingRecordZoneChanges: [Entry<PSSyncEngine.PendingRecordZoneChange>] = []
    var pendingDatabaseChanges: [Entry<PSSyncEngine.PendingDatabaseChange>] = []
    var hasPendingUntrackedChanges = false
    /// Counts every add, so that each added change gets a revision of its own.
    var nextRevision: UInt64 = 1
    /// Whether anything changed since the last state update was delivered.
    var isDirty = false

    // MARK: Pending record changes

    mutating func add(_ change: PSSyncEngine.PendingRecordZoneChange) {
        let revision = takeRevision()
        if let index = pendingRecordZoneChanges.firstIndex(where: { $0.change.recordID == change.recordID }) {
            if pendingRecordZoneChanges[index].change == change {
                pendingRecordZoneChanges[index].revision = revision
                return
            }
            pendingRecordZoneChanges.remove(at: index)
        }
        pendingRecordZoneChanges.append(Entry(change: change, revision: revision))
    }

    /// Removes a change, only at `revision` when one is given.
    ///
    /// - Returns: Whether it was there.
    @discardableResult
    mutating func remove(_ change: PSSyncEngine.PendingRecordZoneChange, atRevision revision: UInt64?) -> Bool {
        guard
            let index = pendingRecordZoneChanges.firstIndex(where: {
                $0.change == change && (revision == nil || $0.revision == revision)
            })
        else { return false }
        pendingRecordZoneChanges.remove(at: index)
        return true
    }

    // MARK: Pending zone changes

    mutating func add(_ change: PSSyncEngine.PendingDatabaseChange) {
        let revision = takeRevision()
        if let index = pendingDatabaseChanges.firstIndex(where: { $0.change.zoneID == change.zoneID }) {
            if pendingDatabaseChanges[index].change == change {
                pendingDatabaseChanges[index].revision = revision
                return
            }
            pendingDatabaseChanges.remove(at: index)
        }
        pendingDatabaseChanges.append(Entry(change: change, revision: revision))
    }

    @discardableResult
    mutating func remove(_ change: PSSyncEngine.PendingDatabaseChange, atRevision revision: UInt64?) -> Bool {
        guard
            let index = pendingDatabaseChanges.firstIndex(where: {
                $0.change == change && (revision == nil || $0.revision == revision)
            })
        else { return false }
        pendingDatabaseChanges.remove(at: index)
        return true
    }

    private mutating func takeRevision() -> UInt64 {
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
