#if canImport(CloudKit)
    import CloudKit

    extension PSSyncEngine.SyncReason {
        init(cloudKit reason: CKSyncEngine.SyncReason) {
            self = reason == .manual ? .manual : .scheduled
        }
    }

    extension PSSyncEngine.FetchChangesContext {
        init(cloudKit context: CKSyncEngine.FetchChangesContext) {
            self.init(reason: .init(cloudKit: context.reason), options: .init(cloudKit: context.options))
        }
    }

    extension PSSyncEngine.SendChangesContext {
        init(cloudKit context: CKSyncEngine.SendChangesContext) {
            self.init(reason: .init(cloudKit: context.reason), options: .init(cloudKit: context.options))
        }
    }

    extension PSSyncEngine.FetchChangesOptions {
        init(cloudKit options: CKSyncEngine.FetchChangesOptions) {
            let scope: Scope =
                switch options.scope {
                case .all: .all
                case .allExcluding(let zones): .allExcluding(zones.map(PSRecordZone.ID.init(cloudKit:)))
                case .zoneIDs(let zones): .zoneIDs(zones.map(PSRecordZone.ID.init(cloudKit:)))
                @unknown default: .all
                }
            self.init(scope: scope)
            operationGroup.name = options.operationGroup.name
            prioritizedZoneIDs = options.prioritizedZoneIDs.map(PSRecordZone.ID.init(cloudKit:))
        }

        /// CloudKit's options, with CloudKit's operation group when one is given (the fetch's own).
        func cloudKitOptions(keeping group: CKOperationGroup?) -> CKSyncEngine.FetchChangesOptions {
            let cloudKitScope: CKSyncEngine.FetchChangesOptions.Scope =
                switch scope {
                case .all: .all
                case .allExcluding(let zones): .allExcluding(zones.map(\.cloudKitID))
                case .zoneIDs(let zones): .zoneIDs(zones.map(\.cloudKitID))
                }
            var options = CKSyncEngine.FetchChangesOptions(scope: cloudKitScope, operationGroup: group)
            options.prioritizedZoneIDs = prioritizedZoneIDs.map(\.cloudKitID)
            return options
        }
    }

    extension PSSyncEngine.SendChangesOptions {
        init(cloudKit options: CKSyncEngine.SendChangesOptions) {
            let scope: Scope =
                switch options.scope {
                case .all: .all
                case .allExcluding(let zones): .allExcluding(zones.map(PSRecordZone.ID.init(cloudKit:)))
                case .zoneIDs(let zones): .zoneIDs(zones.map(PSRecordZone.ID.init(cloudKit:)))
                case .recordIDs(let records): .recordIDs(records.map(PSRecord.ID.init(cloudKit:)))
                @unknown default: .all
                }
            self.init(scope: scope)
            operationGroup.name = options.operationGroup.name
        }

        /// CloudKit's options.
        var cloudKitOptions: CKSyncEngine.SendChangesOptions {
            let cloudKitScope: CKSyncEngine.SendChangesOptions.Scope =
                switch scope {
                case .all: .all
                case .allExcluding(let zones): .allExcluding(zones.map(\.cloudKitID))
                case .zoneIDs(let zones): .zoneIDs(zones.map(\.cloudKitID))
                case .recordIDs(let records): .recordIDs(records.map(\.cloudKitID))
                }
            return CKSyncEngine.SendChangesOptions(scope: cloudKitScope)
        }
    }

    extension PSSyncEngine.PendingRecordZoneChange {
        init(cloudKit change: CKSyncEngine.PendingRecordZoneChange) {
            switch change {
            case .saveRecord(let id): self = .saveRecord(PSRecord.ID(cloudKit: id))
            case .deleteRecord(let id): self = .deleteRecord(PSRecord.ID(cloudKit: id))
            @unknown default: preconditionFailure("a pending change of a kind this build does not know: \(change)")
            }
        }

        var cloudKitChange: CKSyncEngine.PendingRecordZoneChange {
            switch self {
            case .saveRecord(let id): .saveRecord(id.cloudKitID)
            case .deleteRecord(let id): .deleteRecord(id.cloudKitID)
            }
        }
    }

    extension PSSyncEngine.PendingDatabaseChange {
        init(cloudKit change: CKSyncEngine.PendingDatabaseChange) {
            switch change {
            case .saveZone(let zone): self = .saveZone(PSRecordZone(zoneID: PSRecordZone.ID(cloudKit: zone.zoneID)))
            case .deleteZone(let id): self = .deleteZone(PSRecordZone.ID(cloudKit: id))
            @unknown default: preconditionFailure("a pending change of a kind this build does not know: \(change)")
            }
        }

        var cloudKitChange: CKSyncEngine.PendingDatabaseChange {
            switch self {
            case .saveZone(let zone): .saveZone(zone.cloudKitZone)
            case .deleteZone(let id): .deleteZone(id.cloudKitID)
            }
        }
    }

    extension PSSyncEngine.RecordZoneChangeBatch {
        /// CloudKit's batch, with the records as `CKRecord`s.
        var cloudKitBatch: CKSyncEngine.RecordZoneChangeBatch {
            CKSyncEngine.RecordZoneChangeBatch(
                recordsToSave: recordsToSave.map(\.cloudKitRecord),
                recordIDsToDelete: recordIDsToDelete.map(\.cloudKitID),
                atomicByZone: atomicByZone)
        }
    }
#endif
