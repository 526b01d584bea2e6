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

    /// The names of the records a store file holds or has a change pending of: every name the file would bring
    /// back if it were restored (an archive's unsent deletes name records it no longer holds).
    ///
    /// - Parameter path: A store file (active or archived).
    /// - Returns: The names, each once.
    /// - Throws: `DatabaseFileError` for a missing, damaged or foreign file.
    public static func namesHeldOrPending(inStoreFile path: String) throws -> Set<String> {
        let connection = try DatabaseFile.open(
            at: path, format: RecordStore<UserCreated>.format, create: false, readOnly: true, verifyIntegrity: true)
        return Set(
            try connection.query(
                "SELECT record_name FROM records UNION SELECT record_name FROM pending_changes"
            ) { $0.text(0) })
    }

    /// The names of the records a store file holds no record of and has a delete pending of: an archive's unsent
    /// deletes.
    ///
    /// - Parameter path: A store file (active or archived).
    /// - Returns: The names, each once.
    /// - Throws: `DatabaseFileError` for a missing, damaged or foreign file.
    public static func pendingDeletes(inStoreFile path: String) throws -> Set<String> {
        let connection = try DatabaseFile.open(
            at: path, format: RecordStore<UserCreated>.format, create: false, readOnly: true, verifyIntegrity: true)
        return Set(
            try connection.query(
                """
                SELECT record_name FROM pending_changes
                WHERE kind = 'delete' AND record_name NOT IN (SELECT record_name FROM records)
                """
            ) { $0.text(0) })
    }
}
