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
package enum RecordMapping {
    static let versionsKey = Schema.reservedFieldName
    static let createdAtKey = Schema.reservedCreatedAtFieldName

    /// The CloudKit record to save for `record`, based on the server version it was last confirmed as.
    package static func cloudRecord(for record: StoredRecord, zone: ZoneID, basedOn server: SystemFields?) -> Record {
        var cloud = Record(
            recordType: record.type, recordID: RecordID(uncheckedName: record.name, zoneID: zone), systemFields: server)
        for (key, value) in record.fields { cloud[key] = value }
        // Fields cleared here are sent as cleared, so that the server drops them too.
        for key in record.fieldVersions.versions.keys where record.fields[key] == nil { cloud[key] = nil }
        cloud[versionsKey] = .string(record.fieldVersions.encoded)
        cloud[createdAtKey] = .date(record.createdAt)
        return cloud
    }

    /// The field versions a record carries, when they can be used: readable, and every time within the range every
    /// time of a store stays in (``StoredRecord/storageProblem(serverFields:)``). Anything else is another client's
    /// value that this device cannot take; the record is then read as one written without versions.
    static func usableVersions(of cloud: Record) -> FieldVersions? {
        guard case .string(let text)? = cloud[versionsKey], let versions = FieldVersions(encoded: text) else {
            return nil
        }
        return StoredRecord.problem(in: versions, margin: StoredRecord.fetchedVersionMargin) == nil ? versions : nil
    }

    /// The creation time a record carries (`syncCreatedAt`), when it is a date in range.
    static func usableCreation(of cloud: Record) -> Date? {
        guard case .date(let date)? = cloud[createdAtKey],
            StoredRecord.timeProblem(date.timeIntervalSinceReferenceDate) == nil
        else { return nil }
        return date
    }

    /// What of a record's reserved values (`syncFieldVersions`, `syncCreatedAt`) this device cannot use, in words,
    /// or `nil` when it can use them all, or the record has none (a record of another client).
    package static func unusableReservedValue(of cloud: Record) -> String? {
        if let value = cloud[versionsKey], usableVersions(of: cloud) == nil {
            guard case .string(let text) = value, let versions = FieldVersions(encoded: text) else {
                return "its \(versionsKey) cannot be read"
            }
            return "its \(versionsKey): "
                + (StoredRecord.problem(in: versions, margin: StoredRecord.fetchedVersionMargin) ?? "cannot be used")
        }
        if let value = cloud[createdAtKey], usableCreation(of: cloud) == nil {
            guard case .date(let date) = value else { return "its \(createdAtKey) is not a date" }
            return "its \(createdAtKey) "
                + (StoredRecord.timeProblem(date.timeIntervalSinceReferenceDate) ?? "cannot be used")
        }
        return nil
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
    /// - Returns: The device record.
    package static func storedRecord(
        from cloud: Record, origin: UserRecordID?, existing: StoredRecord?
    ) -> StoredRecord {
        var fields = cloud.fields
        fields[versionsKey] = nil
        fields[createdAtKey] = nil
        var versions: FieldVersions
        if let parsed = usableVersions(of: cloud) {
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
        let created: Date
        if let date = usableCreation(of: cloud) {
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
