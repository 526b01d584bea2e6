#if canImport(CloudKit)
    import CloudKit
    import Foundation

    extension PSSyncEngine.Event {
        /// CloudKit's event as PrivateSync's, or `nil` for a case this build does not know (CloudKit may add some).
        ///
        /// - Parameter event: CloudKit's event.
        init?(cloudKit event: CKSyncEngine.Event) {
            switch event {
            case .stateUpdate(let update):
                guard let json = try? JSONEncoder().encode(update.stateSerialization) else { return nil }
                self = .stateUpdate(.init(stateSerialization: .init(cloudKitJSON: json)))
            case .accountChange(let change):
                switch change.changeType {
                case .signIn(let current):
                    self = .accountChange(.init(changeType: .signIn(currentUser: PSRecord.ID(cloudKit: current))))
                case .signOut(let previous):
                    self = .accountChange(.init(changeType: .signOut(previousUser: PSRecord.ID(cloudKit: previous))))
                case .switchAccounts(let previous, let current):
                    self = .accountChange(
                        .init(
                            changeType: .switchAccounts(
                                previousUser: PSRecord.ID(cloudKit: previous),
                                currentUser: PSRecord.ID(cloudKit: current))))
                @unknown default:
                    return nil
                }
            case .fetchedDatabaseChanges(let changes):
                self = .fetchedDatabaseChanges(
                    .init(
                        modifications: changes.modifications.map {
                            .init(zoneID: PSRecordZone.ID(cloudKit: $0.zoneID))
                        },
                        deletions: changes.deletions.map {
                            .init(zoneID: PSRecordZone.ID(cloudKit: $0.zoneID), reason: .init(cloudKit: $0.reason))
                        }))
            case .fetchedRecordZoneChanges(let changes):
                self = .fetchedRecordZoneChanges(
                    .init(
                        modifications: changes.modifications.map { .init(record: PSRecord(cloudKit: $0.record)) },
                        deletions: changes.deletions.map {
                            .init(recordID: PSRecord.ID(cloudKit: $0.recordID), recordType: $0.recordType)
                        }))
            case .sentDatabaseChanges(let sent):
                self = .sentDatabaseChanges(
                    .init(
                        savedZones: sent.savedZones.map { PSRecordZone(zoneID: PSRecordZone.ID(cloudKit: $0.zoneID)) },
                        failedZoneSaves: sent.failedZoneSaves.map {
                            .init(
                                zone: PSRecordZone(zoneID: PSRecordZone.ID(cloudKit: $0.zone.zoneID)),
                                error: PSError(cloudKit: $0.error))
                        },
                        deletedZoneIDs: sent.deletedZoneIDs.map(PSRecordZone.ID.init(cloudKit:)),
                        failedZoneDeletes: Dictionary(
                            sent.failedZoneDeletes.map {
                                (PSRecordZone.ID(cloudKit: $0.key), PSError(cloudKit: $0.value))
                            },
                            uniquingKeysWith: { first, _ in first })))
            case .sentRecordZoneChanges(let sent):
                self = .sentRecordZoneChanges(
                    .init(
                        savedRecords: sent.savedRecords.map(PSRecord.init(cloudKit:)),
                        failedRecordSaves: sent.failedRecordSaves.map {
                            .init(record: PSRecord(cloudKit: $0.record), error: PSError(cloudKit: $0.error))
                        },
                        deletedRecordIDs: sent.deletedRecordIDs.map(PSRecord.ID.init(cloudKit:)),
                        failedRecordDeletes: Dictionary(
                            sent.failedRecordDeletes.map {
                                (PSRecord.ID(cloudKit: $0.key), PSError(cloudKit: $0.value))
                            },
                            uniquingKeysWith: { first, _ in first })))
            case .willFetchChanges(let will):
                self = .willFetchChanges(.init(context: .init(cloudKit: will.context)))
            case .willFetchRecordZoneChanges(let will):
                self = .willFetchRecordZoneChanges(.init(zoneID: PSRecordZone.ID(cloudKit: will.zoneID)))
            case .didFetchRecordZoneChanges(let did):
                self = .didFetchRecordZoneChanges(
                    .init(zoneID: PSRecordZone.ID(cloudKit: did.zoneID), error: did.error.map(PSError.init(cloudKit:))))
            case .didFetchChanges(let did):
                self = .didFetchChanges(.init(context: .init(cloudKit: did.context)))
            case .willSendChanges(let will):
                self = .willSendChanges(.init(context: .init(cloudKit: will.context)))
            case .didSendChanges(let did):
                self = .didSendChanges(.init(context: .init(cloudKit: did.context)))
            @unknown default:
                return nil
            }
        }
    }

    /// CloudKit's errors by item, as PrivateSync's.
    private func errors<CloudKitKey, Key: Hashable>(
        _ errors: [CloudKitKey: CKError], _ key: (CloudKitKey) -> Key
    ) -> [Key: PSError] {
        Dictionary(errors.map { (key($0.key), PSError(cloudKit: $0.value)) }, uniquingKeysWith: { first, _ in first })
    }

    extension PSDatabase.DatabaseChange.Deletion.Reason {
        /// CloudKit's reason; one this build does not know counts as `deleted`.
        init(cloudKit reason: CKDatabase.DatabaseChange.Deletion.Reason) {
            switch reason {
            case .deleted: self = .deleted
            case .purged: self = .purged
            case .encryptedDataReset: self = .encryptedDataReset
            @unknown default: self = .deleted
            }
        }
    }
#endif
