import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A record, as `CKRecord`: a type, an identifier, fields, and the system fields the server set.
///
/// A reference type, as CloudKit's is: a delegate fills in the record it is handed (`populateRecord(record)`), and
/// every holder sees the change. It is safe to use from several tasks (its state sits behind a lock), which is what
/// makes it `Sendable` without an unchecked conformance. Equality is identity, as for `CKRecord`.
///
/// Setting a field marks its key as changed (``changedKeys()``): a save with the default policy writes the changed
/// keys onto the server's version, as CloudKit uploads only what changed. A record made from cached system fields
/// (``init(coder:)``) therefore needs only the fields that changed.
public final class PSRecord: Sendable, Hashable, CustomStringConvertible {
    /// A record type's name, as `CKRecord.RecordType`.
    public typealias RecordType = String
    /// A field's name, as `CKRecord.FieldKey`.
    public typealias FieldKey = String

    struct Contents: Sendable {
        var fields: [String: FieldValue] = [:]
        var changedKeys: Set<String> = []
        /// The value each changed key had before its first change since the last save or fetch (`nil` for none).
        var originalValues: [String: FieldValue?] = [:]
        var systemFields: SystemFields?
        var parent: Reference?
        /// Whether the record holds every field of the server's version it is based on (it came from the server);
        /// one made from cached system fields holds only what was set since, and its saves send only that.
        var holdsAllServerFields = false
        /// Whether the parent was set since the record was fetched or saved.
        var parentChanged = false
        /// The keys last set through ``PSRecord/encryptedValues``: on a device they go to CloudKit's encrypted
        /// values (the fake keeps every key in one place).
        var encryptedKeys: Set<String> = []
        /// The real `CKRecord`'s archived system fields, for a record the bridge brought from CloudKit: what makes
        /// a `CKRecord` with the right change tag when it goes back.
        var cloudKitSystemFields: Data?
    }

    /// The record's identifier.
    public let recordID: ID
    /// The record's type.
    public let recordType: RecordType
    let contents: Mutex<Contents>

    /// Creates a new record with no fields, as `CKRecord(recordType:recordID:)`.
    ///
    /// - Parameters:
    ///   - recordType: The type's name; the server refuses one that is not an identifier.
    ///   - recordID: The identifier; a new UUID in the default zone by default.
    public init(recordType: RecordType, recordID: ID = ID()) {
        self.recordType = recordType
        self.recordID = recordID
        self.contents = Mutex(Contents())
    }

    /// Creates a new record with a new UUID for a name, in a zone, as `CKRecord(recordType:zoneID:)`.
    ///
    /// - Parameters:
    ///   - recordType: The type's name.
    ///   - zoneID: The zone.
    public convenience init(recordType: RecordType, zoneID: PSRecordZone.ID) {
        self.init(recordType: recordType, recordID: ID(zoneID: zoneID))
    }

    init(recordType: RecordType, recordID: ID, contents: Contents) {
        self.recordType = recordType
        self.recordID = recordID
        self.contents = Mutex(contents)
    }

    // MARK: System fields

    /// The server's change tag of the version this record is based on; `nil` for a record never saved.
    public var recordChangeTag: String? { contents.withLock { $0.systemFields?.changeTag } }
    /// When the record was first saved; `nil` for a record never saved.
    public var creationDate: Date? { contents.withLock { $0.systemFields?.creationDate } }
    /// When the record was last saved; `nil` for a record never saved.
    public var modificationDate: Date? { contents.withLock { $0.systemFields?.modificationDate } }
    /// The user record of the account that first saved the record; `nil` for a record never saved.
    public var creatorUserRecordID: ID? {
        contents.withLock { $0.systemFields.map { ID(recordName: $0.creatorUserRecordID.recordName) } }
    }
    /// The user record of the account that last saved the record; `nil` for a record never saved.
    public var lastModifiedUserRecordID: ID? {
        contents.withLock { $0.systemFields.map { ID(recordName: $0.lastModifiedUserRecordID.recordName) } }
    }

    // MARK: Fields

    /// A field's value, as `CKRecord`'s subscript; setting one marks the key as changed, and `nil` removes it.
    ///
    /// Numbers and Booleans read back as `NSNumber`, so `as? Int`, `as? Double` and `as? Bool` all work, as on a
    /// device.
    ///
    /// - Parameter key: The field's name.
    public subscript(key: FieldKey) -> (any PSRecordValueProtocol)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    /// A field's value as a given type, as `CKRecord`'s generic subscript: `let name: String? = record["name"]`.
    ///
    /// - Parameter key: The field's name.
    /// - Returns: The value, or `nil` when the record has no such field or it holds another type.
    public subscript<Value: PSRecordValueProtocol>(key: FieldKey) -> Value? {
        get { object(forKey: key) as? Value }
        set { setObject(newValue, forKey: key) }
    }

    /// A field's value, as `CKRecord.object(forKey:)`.
    ///
    /// - Parameter key: The field's name.
    /// - Returns: The value, or `nil` when the record has no such field.
    public func object(forKey key: FieldKey) -> (any PSRecordValueProtocol)? {
        contents.withLock { $0.fields[key] }.map(RecordValueConversion.recordValue)
    }

    /// Sets a field, as `CKRecord.setObject(_:forKey:)`; `nil` removes it. The key counts as changed.
    ///
    /// A value of no field type (an array of arrays) stops the program, as CloudKit raises an exception for one.
    ///
    /// - Parameters:
    ///   - value: The value, or `nil`.
    ///   - key: The field's name.
    public func setObject(_ value: (any PSRecordValueProtocol)?, forKey key: FieldKey) {
        set(value, forKey: key, encrypted: false)
    }

    /// Sets a field as a plain or an encrypted value.
    func set(_ value: (any PSRecordValueProtocol)?, forKey key: FieldKey, encrypted: Bool) {
        let converted: FieldValue?
        if let value {
            guard let field = RecordValueConversion.fieldValue(value) else {
                preconditionFailure("PSRecord: \(type(of: value)) is not a field type (key \(key) of \(recordID))")
            }
            converted = field
        } else {
            converted = nil
        }
        contents.withLock { contents in
            if contents.originalValues.index(forKey: key) == nil {
                contents.originalValues[key] = .some(contents.fields[key])
            }
            contents.fields[key] = converted
            contents.changedKeys.insert(key)
            if encrypted { contents.encryptedKeys.insert(key) } else { contents.encryptedKeys.remove(key) }
        }
    }

    /// The keys that have values, sorted, as `CKRecord.allKeys()`.
    ///
    /// - Returns: The keys.
    public func allKeys() -> [FieldKey] {
        contents.withLock { $0.fields.keys.sorted() }
    }

    /// The keys set since the record was created, fetched or last saved, sorted, as `CKRecord.changedKeys()`.
    ///
    /// - Returns: The keys.
    public func changedKeys() -> [FieldKey] {
        contents.withLock { $0.changedKeys.sorted() }
    }

    /// The record's encrypted fields, as `CKRecord.encryptedValues`.
    ///
    /// This fake encrypts nothing: encrypted values and plain ones share the record's keys, so a key set here reads
    /// back through the plain subscript too (on a device the two are apart). Code that keeps each key on one side,
    /// as CloudKit requires, behaves the same on both.
    public var encryptedValues: EncryptedValues { EncryptedValues(record: self) }

    /// A record's encrypted fields: the subscript `record.encryptedValues[key]` reads and writes.
    public struct EncryptedValues: Sendable {
        let record: PSRecord

        /// A field's value; setting one marks the key as changed, and `nil` removes it.
        ///
        /// - Parameter key: The field's name.
        public subscript(key: FieldKey) -> (any PSRecordValueProtocol)? {
            get { record.object(forKey: key) }
            nonmutating set { record.set(newValue, forKey: key, encrypted: true) }
        }

        /// A field's value as a given type: `let date: Date? = record.encryptedValues["date"]`.
        ///
        /// - Parameter key: The field's name.
        public subscript<Value: PSRecordValueProtocol>(key: FieldKey) -> Value? {
            get { record.object(forKey: key) as? Value }
            nonmutating set { record.set(newValue, forKey: key, encrypted: true) }
        }
    }

    // MARK: Parent

    /// The record's parent, as `CKRecord.parent` (saved in a field of its own, `privateSyncParent`; no sharing
    /// follows it).
    public var parent: Reference? {
        get { contents.withLock { $0.parent } }
        set {
            contents.withLock { contents in
                contents.parent = newValue
                contents.parentChanged = true
            }
        }
    }

    /// Sets the parent to a record, as `CKRecord.setParent(_:)`.
    ///
    /// - Parameter parentRecord: The parent, or `nil` for none.
    public func setParent(_ parentRecord: PSRecord?) {
        parent = parentRecord.map { Reference(record: $0, action: .none) }
    }

    /// Sets the parent to a record identifier, as `CKRecord.setParent(_:)`.
    ///
    /// - Parameter parentID: The parent's identifier, or `nil` for none.
    public func setParent(_ parentID: ID?) {
        parent = parentID.map { Reference(recordID: $0, action: .none) }
    }

    // MARK: Copying

    /// A copy, as `CKRecord.copy()`: the same identifier, type, fields, system fields and changed keys, in a new
    /// object.
    ///
    /// - Returns: The copy (a ``PSRecord``), typed `Any` as NSObject's `copy()` is, so `record.copy() as! CKRecord`
    ///   becomes `record.copy() as! PSRecord` and nothing else.
    public func copy() -> Any {
        PSRecord(recordType: recordType, recordID: recordID, contents: contents.withLock { $0 })
    }

    // MARK: Identity

    /// Identity, as for `CKRecord`.
    public static func == (lhs: PSRecord, rhs: PSRecord) -> Bool { lhs === rhs }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    /// The type, the name and the fields, as CloudKit's description lists them.
    public var description: String {
        let (fields, tag) = contents.withLock { ($0.fields, $0.systemFields?.changeTag) }
        let body = fields.keys.sorted().map { "\($0) = \(fields[$0]!)" }.joined(separator: "; ")
        return "<PSRecord: recordType=\(recordType), recordID=\(recordID.recordName), "
            + "recordChangeTag=\(tag ?? "nil"), values={\(body)}>"
    }
}
