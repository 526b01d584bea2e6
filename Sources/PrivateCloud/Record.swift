#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A record: a type, an identifier, typed fields, and the system fields the server sets.
///
/// Like `CKRecord`, a record remembers which keys were set since it was last fetched or saved (``changedKeys``),
/// which the `changedKeys` save policy sends, and the values those keys had before (which make up
/// ``ancestor``). Equality compares identity, type, fields and system fields; not that bookkeeping.
public struct Record: Hashable, Sendable, CustomStringConvertible {
    /// The record's identifier.
    public let recordID: RecordID
    /// The record's type.
    public let recordType: String
    /// The record's fields.
    public private(set) var fields: [String: FieldValue]
    /// The system fields the server set at the last save, or `nil` for a record the server has never returned.
    public internal(set) var systemFields: SystemFields?
    /// The keys set since the record was last fetched or saved.
    public private(set) var changedKeys: Set<String> = []
    private var originalValues: [String: FieldValue?] = [:]
    /// Whether a save with the default policy sends only ``changedKeys``, as CloudKit uploads a `CKRecord`, so that
    /// keys the record does not hold keep their server values. Set by PrivateSyncEngine for a record made from cached
    /// system fields, which holds only the keys it set; every other record replaces the server's fields with its own
    /// (it holds all of them: fetched, or built whole by its client).
    package var uploadsChangedKeysOnly = false

    /// Creates a new record with no fields.
    ///
    /// - Parameters:
    ///   - recordType: An identifier: an ASCII letter, then letters, digits and underscores, at most 255.
    ///   - recordID: The record's identifier.
    /// - Throws: ``CloudError`` `invalidArguments` when the type name is not valid.
    public init(recordType: String, recordID: RecordID) throws(CloudError) {
        if let problem = CloudKitNames.problem(withIdentifier: recordType, kind: "record type") {
            throw CloudError(.invalidArguments, problem)
        }
        self.recordType = recordType
        self.recordID = recordID
        self.fields = [:]
    }

    /// Recreates a record from cached system fields, as `CKRecord(coder:)` does from `encodeSystemFields(with:)`.
    ///
    /// The record has no fields; fields set afterwards count as changed, and a save with the default policy is
    /// checked against the cached change tag.
    ///
    /// - Parameters:
    ///   - recordType: The record's type.
    ///   - recordID: The record's identifier.
    ///   - systemFields: The system fields the server last returned.
    public init(recordType: String, recordID: RecordID, systemFields: SystemFields?) {
        self.recordType = recordType
        self.recordID = recordID
        self.fields = [:]
        self.systemFields = systemFields
    }

    /// A record as the server holds it: fields and system fields, nothing changed.
    init(recordID: RecordID, recordType: String, fields: [String: FieldValue], systemFields: SystemFields?) {
        self.recordID = recordID
        self.recordType = recordType
        self.fields = fields
        self.systemFields = systemFields
    }

    /// A record with its change tracking, as another record type of this package hands one over (PrivateSyncEngine's
    /// `PSRecord`, whose saves must send exactly the keys it changed, with the values they had before).
    ///
    /// - Parameters:
    ///   - recordID: The identifier.
    ///   - recordType: The type.
    ///   - fields: Every field the record holds.
    ///   - systemFields: The system fields of the server's version it is based on, or `nil`.
    ///   - changedKeys: The keys set since it was fetched or saved.
    ///   - originalValues: The value each changed key had before its first change (`nil` for none).
    package init(
        recordID: RecordID, recordType: String, fields: [String: FieldValue], systemFields: SystemFields?,
        changedKeys: Set<String>, originalValues: [String: FieldValue?]
    ) {
        self.init(recordID: recordID, recordType: recordType, fields: fields, systemFields: systemFields)
        self.changedKeys = changedKeys
        self.originalValues = originalValues
    }

    /// A field's value; setting it marks the key as changed, and `nil` removes the field.
    public subscript(key: String) -> FieldValue? {
        get { fields[key] }
        set {
            if originalValues.index(forKey: key) == nil { originalValues[key] = .some(fields[key]) }
            fields[key] = newValue
            changedKeys.insert(key)
        }
    }

    /// The keys that have values, sorted.
    public var allKeys: [String] { fields.keys.sorted() }

    /// The change tag of the server's version this record is based on, or `nil` for a new record.
    public var recordChangeTag: String? { systemFields?.changeTag }

    /// The record as it was before the keys in ``changedKeys`` were set, or `nil` for a record the server never
    /// returned. This is what a `serverRecordChanged` error carries as its ancestor.
    public var ancestor: Record? {
        guard systemFields != nil else { return nil }
        var fields = self.fields
        for (key, original) in originalValues { fields[key] = original }
        return Record(recordID: recordID, recordType: recordType, fields: fields, systemFields: systemFields)
    }

    /// Forgets which keys changed, as a record does once saved or fetched.
    mutating func clearChangeTracking() {
        changedKeys = []
        originalValues = [:]
    }

    /// The size CloudKit's 1 MB limit is measured against: the bytes of the encoded fields.
    public var encodedSize: Int { FieldsJSON.encodedSize(fields) }

    public var description: String {
        let body = allKeys.map { "\($0): \(fields[$0]!)" }.joined(separator: ", ")
        return "\(recordType) \(recordID.recordName) {\(body)}"
    }

    public static func == (lhs: Record, rhs: Record) -> Bool {
        lhs.recordID == rhs.recordID && lhs.recordType == rhs.recordType && lhs.fields == rhs.fields
            && lhs.systemFields == rhs.systemFields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(recordID)
        hasher.combine(recordType)
        hasher.combine(fields)
        hasher.combine(systemFields)
    }
}

/// The fields the server sets on every save.
public struct SystemFields: Hashable, Sendable {
    /// A new value on every save; the default save policy compares it.
    public let changeTag: String
    /// When the record was first saved.
    public let creationDate: Date
    /// When the record was last saved.
    public let modificationDate: Date
    /// The user who first saved the record.
    public let creatorUserRecordID: UserRecordID
    /// The user who last saved the record.
    public let lastModifiedUserRecordID: UserRecordID

    /// Creates system fields (as a server, or a client restoring cached ones, does).
    public init(
        changeTag: String, creationDate: Date, modificationDate: Date, creatorUserRecordID: UserRecordID,
        lastModifiedUserRecordID: UserRecordID
    ) {
        self.changeTag = changeTag
        self.creationDate = creationDate
        self.modificationDate = modificationDate
        self.creatorUserRecordID = creatorUserRecordID
        self.lastModifiedUserRecordID = lastModifiedUserRecordID
    }
}
