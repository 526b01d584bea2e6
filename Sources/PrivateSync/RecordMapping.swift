import DeviceStore
import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a device record becomes a CloudKit record and back.
///
/// The fields go across as they are, plus one reserved string field, `syncFieldVersions`, that carries each
/// field's version so that every device can resolve conflicts per field. A record that lacks it (written by
/// another client) counts as written entirely at its modification date, by "server".
enum RecordMapping {
    static let versionsKey = Schema.reservedFieldName
    static let createdAtKey = Schema.reservedCreatedAtFieldName

    /// The CloudKit record to save for `record`, based on the server version it was last confirmed as.
    static func cloudRecord(for record: StoredRecord, zone: ZoneID, basedOn server: SystemFields?) -> Record {
        var cloud = Record(
            recordType: record.type, recordID: RecordID(uncheckedName: record.name, zoneID: zone), systemFields: server)
        for (key, value) in record.fields { cloud[key] = value }
        // Fields cleared here are sent as cleared, so that the server drops them too.
        for key in record.fieldVersions.versions.keys where record.fields[key] == nil { cloud[key] = nil }
        cloud[versionsKey] = .string(record.fieldVersions.encoded)
        cloud[createdAtKey] = .date(record.createdAt)
        return cloud
    }

    /// The device record for a CloudKit record.
    ///
    /// Its times are the record's own, the same on every device: created when the writer created it (the reserved
    /// `syncCreatedAt` field, or the server's creation date for a record written by another client), modified at
    /// its latest field edit that survived (the latest field version), never when this device happened to fetch it.
    ///
    /// - Parameters:
    ///   - cloud: The server's record.
    ///   - origin: The account it came from.
    ///   - existing: This device's version, if it has one.
    ///   - serverTimes: Take the server's dates instead (a planted bug, for the simulator's proofs).
    /// - Returns: The device record.
    static func storedRecord(
        from cloud: Record, origin: UserRecordID?, existing: StoredRecord?, serverTimes: Bool = false
    ) -> StoredRecord {
        var fields = cloud.fields
        let encodedVersions = fields.removeValue(forKey: versionsKey)
        let encodedCreation = fields.removeValue(forKey: createdAtKey)
        var versions: FieldVersions
        if case .string(let text)? = encodedVersions, let parsed = FieldVersions(encoded: text) {
            versions = parsed
        } else {
            let time = (cloud.systemFields?.modificationDate ?? Date(timeIntervalSinceReferenceDate: 0))
                .timeIntervalSinceReferenceDate
            versions = FieldVersions(fields.mapValues { _ in FieldVersion(time: time, device: "server") })
        }
        if versions.versions.isEmpty && !fields.isEmpty {
            versions = FieldVersions(fields.mapValues { _ in FieldVersion(time: 0, device: "server") })
        }
        let serverModified = cloud.systemFields?.modificationDate ?? Date(timeIntervalSinceReferenceDate: 0)
        if serverTimes {
            return StoredRecord(
                name: cloud.recordID.recordName, type: cloud.recordType, fields: fields, fieldVersions: versions,
                origin: existing?.origin ?? origin,
                createdAt: existing?.createdAt ?? cloud.systemFields?.creationDate ?? serverModified,
                modifiedAt: serverModified)
        }
        let created: Date
        if case .date(let date)? = encodedCreation {
            created = date
        } else {
            created = existing?.createdAt ?? cloud.systemFields?.creationDate ?? serverModified
        }
        return StoredRecord(
            name: cloud.recordID.recordName, type: cloud.recordType, fields: fields, fieldVersions: versions,
            origin: existing?.origin ?? origin, createdAt: created,
            modifiedAt: versions.latest.map { Date(timeIntervalSinceReferenceDate: $0) } ?? created)
    }
}
