#if canImport(CloudKit)
    import CloudKit

    /// The bridge's state face: the real engine's pending lists, in PrivateSync's types.
    struct CloudKitStateForwarding: ForwardedState {
        let state: CKSyncEngine.State

        var pendingRecordZoneChanges: [PSSyncEngine.PendingRecordZoneChange] {
            state.pendingRecordZoneChanges.map(PSSyncEngine.PendingRecordZoneChange.init(cloudKit:))
        }

        var pendingDatabaseChanges: [PSSyncEngine.PendingDatabaseChange] {
            state.pendingDatabaseChanges.map(PSSyncEngine.PendingDatabaseChange.init(cloudKit:))
        }

        var hasPendingUntrackedChanges: Bool {
            get { state.hasPendingUntrackedChanges }
            nonmutating set { state.hasPendingUntrackedChanges = newValue }
        }

        var zoneIDsWithUnfetchedServerChanges: [PSRecordZone.ID] {
            state.zoneIDsWithUnfetchedServerChanges.map(PSRecordZone.ID.init(cloudKit:))
        }

        func add(pendingRecordZoneChanges: [PSSyncEngine.PendingRecordZoneChange]) {
            state.add(pendingRecordZoneChanges: pendingRecordZoneChanges.map(\.cloudKitChange))
        }

        func remove(pendingRecordZoneChanges: [PSSyncEngine.PendingRecordZoneChange]) {
            state.remove(pendingRecordZoneChanges: pendingRecordZoneChanges.map(\.cloudKitChange))
        }

        func add(pendingDatabaseChanges: [PSSyncEngine.PendingDatabaseChange]) {
            state.add(pendingDatabaseChanges: pendingDatabaseChanges.map(\.cloudKitChange))
        }

        func remove(pendingDatabaseChanges: [PSSyncEngine.PendingDatabaseChange]) {
            state.remove(pendingDatabaseChanges: pendingDatabaseChanges.map(\.cloudKitChange))
        }
    }
#endif
