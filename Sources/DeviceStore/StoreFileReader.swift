public import PrivateCloud
import PrivateSyncSQLite

/// Reads a device store file without opening it as a store: read-only, for audits and inspection tools.
public enum StoreFileReader {
    /// Each record's name, type and origin (the user record it was written under), from a store file.
    ///
    /// - Parameter path: A store file (active or archived).
    /// - Returns: One entry per record.
    /// - Throws: `DatabaseFileError` for a missing, damaged or foreign file.
    public static func origins(inStoreFile path: String) throws -> [(name: String, type: String, origin: UserRecordID?)]
    {
        let connection = try DatabaseFile.open(
            at: path, format: RecordStore<UserCreated>.format, create: false, readOnly: true, verifyIntegrity: true)
        return try connection.query("SELECT record_name, record_type, origin_user FROM records") {
            ($0.text(0), $0.text(1), $0.optionalText(2).map(UserRecordID.init(recordName:)))
        }
    }

    /// What restoring a store file would bring back, by name: the names it holds a record or a pending save of, and
    /// those it holds only as an unsent delete (an archive's delete of a record it no longer holds). One open of the
    /// file (with its integrity check) for both.
    ///
    /// - Parameter path: A store file (active or archived).
    /// - Returns: The two sets of names, disjoint.
    /// - Throws: `DatabaseFileError` for a missing, damaged or foreign file.
    public static func restorableNames(inStoreFile path: String) throws -> (kept: Set<String>, deletedOnly: Set<String>)
    {
        let connection = try DatabaseFile.open(
            at: path, format: RecordStore<UserCreated>.format, create: false, readOnly: true, verifyIntegrity: true)
        var kept = Set<String>()
        var deletedOnly = Set<String>()
        let rows = try connection.query(
            """
            SELECT record_name, 0 FROM records
            UNION SELECT record_name, kind = 'delete' FROM pending_changes
                WHERE record_name NOT IN (SELECT record_name FROM records)
            """
        ) { ($0.text(0), $0.int(1) == 1) }
        for (name, isDelete) in rows {
            if isDelete { deletedOnly.insert(name) } else { kept.insert(name) }
        }
        return (kept, deletedOnly)
    }
}
