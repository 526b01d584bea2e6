import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension PSRecord {
    /// The archive of ``systemFieldsJSON()``: the record's identity and system fields, each under its own key.
    private struct SystemFieldsArchive: Codable {
        var format: Int
        var recordName: String
        var zoneName: String
        var ownerName: String
        var recordType: String
        var changeTag: String?
        var creationDate: Date?
        var modificationDate: Date?
        var creatorUserRecordID: String?
        var lastModifiedUserRecordID: String?
        var cloudKitSystemFields: Data?
    }

    /// The record's identity and system fields as JSON, without its fields: PrivateSync's own form of
    /// ``encodeSystemFields(with:)``, for a build whose keyed archiver cannot be used.
    ///
    /// swift-corelibs-foundation linked statically (`swift build --static-swift-stdlib` on Linux, as `make bench`
    /// builds) writes an empty binary keyed archive, and cannot read back the XML one it writes (toolchain 6.3); a
    /// client that caches system fields there loses them, and every later save of the record conflicts. CloudKit
    /// has no such method; on Apple platforms, keep ``encodeSystemFields(with:)``.
    ///
    /// - Returns: The JSON; ``init(systemFieldsJSON:)`` reads it.
    public func systemFieldsJSON() -> Data {
        let (system, cloudKitSystemFields) = contents.withLock { ($0.systemFields, $0.cloudKitSystemFields) }
        let archive = SystemFieldsArchive(
            format: 1, recordName: recordID.recordName, zoneName: recordID.zoneID.zoneName,
            ownerName: recordID.zoneID.ownerName, recordType: recordType, changeTag: system?.changeTag,
            creationDate: system?.creationDate, modificationDate: system?.modificationDate,
            creatorUserRecordID: system?.creatorUserRecordID.recordName,
            lastModifiedUserRecordID: system?.lastModifiedUserRecordID.recordName,
            cloudKitSystemFields: cloudKitSystemFields)
        // Encoding plain strings, dates and data cannot fail.
        return (try? JSONEncoder().encode(archive)) ?? Data()
    }

    /// Recreates a record from ``systemFieldsJSON()``, as ``init(coder:)`` does from a keyed archive.
    ///
    /// - Parameter systemFieldsJSON: The JSON.
    /// - Returns: The record, with no fields; `nil` for JSON that ``systemFieldsJSON()`` of this format did not
    ///   write (another format, a missing key, system fields only in part).
    public convenience init?(systemFieldsJSON: Data) {
        guard let archive = try? JSONDecoder().decode(SystemFieldsArchive.self, from: systemFieldsJSON),
            archive.format == 1
        else { return nil }
        var contents = Contents()
        contents.cloudKitSystemFields = archive.cloudKitSystemFields
        switch (
            archive.changeTag, archive.creationDate, archive.modificationDate, archive.creatorUserRecordID,
            archive.lastModifiedUserRecordID
        ) {
        case (nil, nil, nil, nil, nil):
            break
        case (let changeTag?, let created?, let modified?, let creator?, let lastModifier?):
            contents.systemFields = SystemFields(
                changeTag: changeTag, creationDate: created, modificationDate: modified,
                creatorUserRecordID: UserRecordID(recordName: creator),
                lastModifiedUserRecordID: UserRecordID(recordName: lastModifier))
        default:
            return nil
        }
        self.init(
            recordType: archive.recordType,
            recordID: ID(
                recordName: archive.recordName,
                zoneID: PSRecordZone.ID(zoneName: archive.zoneName, ownerName: archive.ownerName)),
            contents: contents)
    }
}
