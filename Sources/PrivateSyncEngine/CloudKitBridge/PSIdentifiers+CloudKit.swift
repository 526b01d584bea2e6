#if canImport(CloudKit)
    import CloudKit

    extension PSRecord.ID {
        /// A record identifier CloudKit named.
        init(cloudKit id: CKRecord.ID) {
            self.init(recordName: id.recordName, zoneID: PSRecordZone.ID(cloudKit: id.zoneID))
        }

        /// CloudKit's identifier.
        var cloudKitID: CKRecord.ID {
            CKRecord.ID(recordName: recordName, zoneID: zoneID.cloudKitID)
        }
    }

    extension PSRecordZone.ID {
        /// A zone identifier CloudKit named.
        init(cloudKit id: CKRecordZone.ID) {
            self.init(zoneName: id.zoneName, ownerName: id.ownerName)
        }

        /// CloudKit's identifier.
        var cloudKitID: CKRecordZone.ID {
            CKRecordZone.ID(zoneName: zoneName, ownerName: ownerName)
        }
    }

    extension PSRecordZone {
        /// CloudKit's zone.
        var cloudKitZone: CKRecordZone {
            CKRecordZone(zoneID: zoneID.cloudKitID)
        }
    }
#endif
