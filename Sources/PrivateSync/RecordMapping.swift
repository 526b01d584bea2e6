import DeviceStore
import FoundationEssentials
import PrivateCloud

/// How a device record becomes a CloudKit record and back.
///
/// The fields go across as they are, plus one reserved string field, `syncFieldVersions`, that carries each
/// field's version so that every device can resolve conflicts per field. A record that lacks it (written by
/// another client) counts as written entirely at its modification date, by "server".
enum RecordMapping {
    static let versionsKey = Schema.reservedFieldName

    /// The CloudKit record to save for `record`, based on the server version it was last confirmed as.
    static func cloudRecord(for record: StoredRecord, zone: ZoneID, basedOn server: SystemFields?) -> Record {
        var cloud = Record(
            recordType: record.type, recordID: RecordID(uncheckedName: record.name, zoneID: zone), systemFields: server)
        for (key, value) in record.fields { cloud[key] = value }
        // Fields cleared here are sent as cleared, so that the server drops them too.
        for key in record.fieldVersions.versions.keys where record.fields[key] == nil { cloud[key] = nil }
        cloud[versionsKey] = .string(record.fieldVersions.encoded)
        return cloud
    }

    /// The device record for a CloudKit record.
    static func storedRecord(from cloud: Record, origin: UserRecordID?, existing: StoredRecord?) -> StoredRecord {
        var fields = cloud.fields
        let encodedVersions = fields.removeValue(forKey: versionsKey)
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
        let modified = cloud.systemFields?.modificationDate ?? Date(timeIntervalSinceReferenceDate: 0)
        return StoredRecord(
            name: cloud.recordID.recordName, type: cloud.recordType, fields: fields, fieldVersions: versions,
            origin: existing?.origin ?? origin,
            createdAt: existing?.createdAt ?? cloud.systemFields?.creationDate ?? modified,
            modifiedAt: modified)
    }
}
