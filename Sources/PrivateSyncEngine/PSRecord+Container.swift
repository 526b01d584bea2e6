import Synchronization

extension PSRecord {
    /// The record as the container takes it: its fields, the keys changed since the last save, and the values those
    /// keys had, from which a conflict's ancestor is made.
    package var containerRecord: Record {
        contents.withLock { contents in
            var fields = contents.fields
            var changedKeys = contents.changedKeys
            if let parent = contents.parent { fields[Self.parentKey] = .reference(parent.containerReference) }
            if contents.parentChanged { changedKeys.insert(Self.parentKey) }
            var record = Record(
                recordID: recordID.containerRecordID, recordType: recordType, fields: fields,
                systemFields: contents.systemFields, changedKeys: changedKeys,
                originalValues: contents.originalValues)
            // As CloudKit uploads a CKRecord: the changed keys only, so a record made from cached system fields
            // keeps the server's other keys. A record that came from the server holds them all, and sends them.
            record.uploadsChangedKeysOnly = !contents.holdsAllServerFields
            return record
        }
    }

    /// A record as the server holds it: fields and system fields, nothing changed.
    ///
    /// - Parameter record: What the container returned.
    package convenience init(_ record: Record) {
        var fields = record.fields
        var parent: Reference?
        // Looked up before it is removed: removing copies the fields, which nearly no record needs.
        if fields[Self.parentKey] != nil, case .reference(let reference)? = fields.removeValue(forKey: Self.parentKey) {
            parent = Reference(reference)
        }
        self.init(
            recordType: record.recordType, recordID: ID(record.recordID),
            contents: Contents(
                fields: fields, systemFields: record.systemFields, parent: parent, holdsAllServerFields: true))
    }

    /// The field a record's parent travels in: CloudKit keeps it apart from the fields, this fake in a field of its
    /// own, which ``allKeys()`` does not show (other clients of the container see it).
    static let parentKey = "privateSyncParent"
}
