#if canImport(CloudKit)
    import CloudKit

    /// The bridge's database face: requests on the real `CKDatabase`, in PrivateSync's types.
    struct CloudKitDatabaseForwarding: ForwardedDatabase {
        let database: CKDatabase

        func record(for recordID: PSRecord.ID) async throws(PSError) -> PSRecord {
            do {
                return PSRecord(cloudKit: try await database.record(for: recordID.cloudKitID))
            } catch {
                throw PSError(cloudKit: error)
            }
        }

        func modifyRecords(
            saving recordsToSave: [PSRecord], deleting recordIDsToDelete: [PSRecord.ID], savePolicy: SavePolicy,
            atomically: Bool
        ) async throws(PSError) -> (
            saveResults: [PSRecord.ID: Result<PSRecord, PSError>],
            deleteResults: [PSRecord.ID: Result<Void, PSError>]
        ) {
            let policy: CKModifyRecordsOperation.RecordSavePolicy =
                switch savePolicy {
                case .ifServerRecordUnchanged: .ifServerRecordUnchanged
                case .changedKeys: .changedKeys
                case .allKeys: .allKeys
                }
            do {
                let results = try await database.modifyRecords(
                    saving: recordsToSave.map(\.cloudKitRecord), deleting: recordIDsToDelete.map(\.cloudKitID),
                    savePolicy: policy, atomically: atomically)
                var saves: [PSRecord.ID: Result<PSRecord, PSError>] = [:]
                for (id, result) in results.saveResults {
                    saves[PSRecord.ID(cloudKit: id)] = result.map(PSRecord.init(cloudKit:)).mapError(
                        PSError.init(cloudKit:))
                }
                var deletes: [PSRecord.ID: Result<Void, PSError>] = [:]
                for (id, result) in results.deleteResults {
                    deletes[PSRecord.ID(cloudKit: id)] = result.mapError(PSError.init(cloudKit:))
                }
                return (saves, deletes)
            } catch {
                throw PSError(cloudKit: error)
            }
        }

        func save(_ zone: PSRecordZone) async throws(PSError) -> PSRecordZone {
            do {
                return PSRecordZone(
                    zoneID: PSRecordZone.ID(cloudKit: try await database.save(zone.cloudKitZone).zoneID))
            } catch {
                throw PSError(cloudKit: error)
            }
        }

        func deleteRecordZone(withID zoneID: PSRecordZone.ID) async throws(PSError) {
            do {
                _ = try await database.deleteRecordZone(withID: zoneID.cloudKitID)
            } catch {
                throw PSError(cloudKit: error)
            }
        }

        func allRecordZones() async throws(PSError) -> [PSRecordZone] {
            do {
                return try await database.allRecordZones().map {
                    PSRecordZone(zoneID: PSRecordZone.ID(cloudKit: $0.zoneID))
                }
            } catch {
                throw PSError(cloudKit: error)
            }
        }
    }
#endif
