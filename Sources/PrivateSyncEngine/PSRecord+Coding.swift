public import Foundation  // the whole Foundation: NSCoder, which CKRecord's system-field archives go through
import Synchronization

extension PSRecord {
    /// The keys of an archive of a record's system fields.
    private enum ArchiveKey {
        static let format = "PrivateSyncRecordFormat"
        static let recordName = "recordName"
        static let zoneName = "zoneName"
        static let ownerName = "ownerName"
        static let recordType = "recordType"
        static let changeTag = "recordChangeTag"
        static let creationDate = "creationDate"
        static let modificationDate = "modificationDate"
        static let creator = "creatorUserRecordID"
        static let lastModifier = "lastModifiedUserRecordID"
        static let cloudKitSystemFields = "cloudKitSystemFields"
    }

    /// The archive format this build writes, and the only one it reads.
    private static let archiveFormat: Int64 = 1

    /// Writes the record's identity and system fields, without its fields, as `CKRecord.encodeSystemFields(with:)`.
    ///
    /// What a client keeps locally to save the record again later: ``init(coder:)`` makes a record from it whose
    /// saves carry the cached change tag. Works with a keyed archiver that requires secure coding, as CloudKit's
    /// does. The format is PrivateSync's own (CloudKit's is private): an archive of one does not open in the other.
    ///
    /// - Parameter coder: A keyed archiver.
    public func encodeSystemFields(with coder: NSCoder) {
        let (system, cloudKitSystemFields) = contents.withLock { ($0.systemFields, $0.cloudKitSystemFields) }
        coder.encode(Self.archiveFormat, forKey: ArchiveKey.format)
        coder.encode(recordID.recordName as NSString, forKey: ArchiveKey.recordName)
        coder.encode(recordID.zoneID.zoneName as NSString, forKey: ArchiveKey.zoneName)
        coder.encode(recordID.zoneID.ownerName as NSString, forKey: ArchiveKey.ownerName)
        coder.encode(recordType as NSString, forKey: ArchiveKey.recordType)
        if let cloudKitSystemFields {
            coder.encode(cloudKitSystemFields as NSData, forKey: ArchiveKey.cloudKitSystemFields)
        }
        guard let system else { return }
        coder.encode(system.changeTag as NSString, forKey: ArchiveKey.changeTag)
        coder.encode(system.creationDate as NSDate, forKey: ArchiveKey.creationDate)
        coder.encode(system.modificationDate as NSDate, forKey: ArchiveKey.modificationDate)
        coder.encode(system.creatorUserRecordID.recordName as NSString, forKey: ArchiveKey.creator)
        coder.encode(system.lastModifiedUserRecordID.recordName as NSString, forKey: ArchiveKey.lastModifier)
    }

    /// Recreates a record from its archived system fields, as `CKRecord(coder:)`.
    ///
    /// The record has no fields; fields set afterwards count as changed, and a save with the default policy is
    /// checked against the cached change tag. Returns `nil` for an archive that ``encodeSystemFields(with:)`` of
    /// this format did not write (another format, a missing key, a value of the wrong kind): never a record with
    /// made-up identity, and never the unarchiver's exception.
    ///
    /// - Parameter coder: A keyed unarchiver.
    public convenience init?(coder: NSCoder) {
        guard coder.decodeInt64(forKey: ArchiveKey.format) == Self.archiveFormat,
            let recordName = Self.string(coder, ArchiveKey.recordName),
            let zoneName = Self.string(coder, ArchiveKey.zoneName),
            let ownerName = Self.string(coder, ArchiveKey.ownerName),
            let recordType = Self.string(coder, ArchiveKey.recordType)
        else { return nil }
        var contents = Contents()
        if coder.containsValue(forKey: ArchiveKey.cloudKitSystemFields) {
            guard let data = Self.value(coder, ArchiveKey.cloudKitSystemFields) as? NSData else { return nil }
            contents.cloudKitSystemFields = Data(data)
        }
        if coder.containsValue(forKey: ArchiveKey.changeTag) {
            guard let changeTag = Self.string(coder, ArchiveKey.changeTag),
                let created = Self.value(coder, ArchiveKey.creationDate) as? NSDate,
                let modified = Self.value(coder, ArchiveKey.modificationDate) as? NSDate,
                let creator = Self.string(coder, ArchiveKey.creator),
                let lastModifier = Self.string(coder, ArchiveKey.lastModifier)
            else { return nil }
            contents.systemFields = SystemFields(
                changeTag: changeTag, creationDate: created as Date, modificationDate: modified as Date,
                creatorUserRecordID: UserRecordID(recordName: creator),
                lastModifiedUserRecordID: UserRecordID(recordName: lastModifier))
        }
        self.init(
            recordType: recordType,
            recordID: ID(recordName: recordName, zoneID: PSRecordZone.ID(zoneName: zoneName, ownerName: ownerName)),
            contents: contents)
    }

    private static func string(_ coder: NSCoder, _ key: String) -> String? {
        (value(coder, key) as? NSString).map { String(describing: $0) }
    }

    /// The value under `key`, or `nil` when there is none. Any of the archive's four kinds of value is accepted
    /// and the caller checks which it got, so that a hand-edited archive (a string where a date belongs) gives no
    /// record rather than the unarchiver's exception, which stops the program on a missing key or a wrong class.
    private static func value(_ coder: NSCoder, _ key: String) -> Any? {
        guard coder.containsValue(forKey: key) else { return nil }
        return coder.decodeObject(of: [NSString.self, NSDate.self, NSData.self, NSNumber.self], forKey: key)
    }
}
