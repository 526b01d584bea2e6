public import Foundation  // the whole Foundation: NSKeyedArchiver, for the cached system fields, as Apple's sample
public import PrivateSyncEngine

/// A contact: the sample's one model type, synced as a record of type `Contact` in the zone `Contacts`.
///
/// Written the way Apple's CKSyncEngine sample writes its `Contact` (its `DataModel.swift`), against PrivateSync's
/// names: a name, the date the user last changed it (conflicts keep the later one), and the record's system fields
/// as last seen on the server, archived with `encodeSystemFields(with:)`.
public struct Contact: Codable, Identifiable, Hashable, Sendable {
    /// The contact's identifier, also its record's name.
    public var id: String
    /// The contact's name.
    public var name: String
    /// When the user last changed the contact: the winner of a conflict is the later one.
    public var userModificationDate: Date
    /// The record's system fields as last known on the server, archived.
    public var lastKnownRecordData: Data?

    /// Creates a contact.
    ///
    /// - Parameters:
    ///   - id: The identifier; a new UUID by default.
    ///   - name: The name.
    ///   - userModificationDate: When the user made it.
    public init(id: String = UUID().uuidString, name: String, userModificationDate: Date) {
        self.id = id
        self.name = name
        self.userModificationDate = userModificationDate
    }

    /// Contacts are equal when their identifier, name and modification date are (not their cached system fields).
    public static func == (lhs: Contact, rhs: Contact) -> Bool {
        lhs.id == rhs.id && lhs.name == rhs.name && lhs.userModificationDate == rhs.userModificationDate
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(name)
        hasher.combine(userModificationDate)
    }
}

extension Contact {
    /// The zone every contact lives in.
    public static let zoneName = "Contacts"
    /// The record type of a contact.
    public static let recordType: PSRecord.RecordType = "Contact"

    /// The zone of the contact's record.
    public var zoneID: PSRecordZone.ID { PSRecordZone.ID(zoneName: Self.zoneName) }
    /// The contact's record identifier.
    public var recordID: PSRecord.ID { PSRecord.ID(recordName: id, zoneID: zoneID) }

    /// Takes the server's values when the server's modification date is later, as the sample resolves conflicts:
    /// by the user's own modification date, not the upload order.
    ///
    /// - Parameter record: The server's record.
    public mutating func mergeFromServerRecord(_ record: PSRecord) {
        let serverDate = record.encryptedValues[Self.userModificationDateKey] as? Date ?? .distantPast
        guard serverDate > userModificationDate else { return }
        userModificationDate = serverDate
        if let name = record.encryptedValues[Self.nameKey] as? String { self.name = name }
    }

    /// Writes the contact's fields into a record.
    ///
    /// - Parameter record: The record to fill.
    public func populateRecord(_ record: PSRecord) {
        record.encryptedValues[Self.nameKey] = name
        record.encryptedValues[Self.userModificationDateKey] = userModificationDate
    }

    /// Keeps `record` as the last known server record, unless the one kept is newer.
    ///
    /// - Parameter record: A record from the server.
    public mutating func setLastKnownRecordIfNewer(_ record: PSRecord) {
        if let known = lastKnownRecord?.modificationDate {
            if let other = record.modificationDate, known < other { lastKnownRecord = record }
        } else {
            lastKnownRecord = record
        }
    }

    /// The record the cached system fields stand for (no fields), or `nil` when there are none or they cannot be
    /// read.
    ///
    /// Kept as a keyed archive, as Apple's sample keeps it; where the keyed archiver writes nothing
    /// (swift-corelibs-foundation linked statically, as `make bench` builds on Linux), as PrivateSync's own JSON.
    public var lastKnownRecord: PSRecord? {
        get {
            guard let data = lastKnownRecordData else { return nil }
            if data.first == UInt8(ascii: "{") { return PSRecord(systemFieldsJSON: data) }
            guard let unarchiver = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
            unarchiver.requiresSecureCoding = true
            return PSRecord(coder: unarchiver)
        }
        set {
            guard let newValue else {
                lastKnownRecordData = nil
                return
            }
            let archiver = NSKeyedArchiver(requiringSecureCoding: true)
            newValue.encodeSystemFields(with: archiver)
            let archive = archiver.encodedData
            lastKnownRecordData = archive.isEmpty ? newValue.systemFieldsJSON() : archive
        }
    }

    /// The record's field of the contact's name (encrypted, as in Apple's sample).
    public static let nameKey = "name"
    /// The record's field of the date the user last edited the contact: what a conflict is settled by.
    public static let userModificationDateKey = "userModificationDate"
}
