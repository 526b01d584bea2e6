/// Where a state's members go when it fronts the real CKSyncEngine's state (the bridge's).
protocol ForwardedState: Sendable {
    var pendingRecordZoneChanges: [PSSyncEngine.PendingRecordZoneChange] { get }
    var pendingDatabaseChanges: [PSSyncEngine.PendingDatabaseChange] { get }
    var hasPendingUntrackedChanges: Bool { get nonmutating set }
    var zoneIDsWithUnfetchedServerChanges: [PSRecordZone.ID] { get }
    func add(pendingRecordZoneChanges: [PSSyncEngine.PendingRecordZoneChange])
    func remove(pendingRecordZoneChanges: [PSSyncEngine.PendingRecordZoneChange])
    func add(pendingDatabaseChanges: [PSSyncEngine.PendingDatabaseChange])
    func remove(pendingDatabaseChanges: [PSSyncEngine.PendingDatabaseChange])
}
