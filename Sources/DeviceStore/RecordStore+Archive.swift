import FileSystem
import FoundationEssentials
import PrivateCloud
import SQLite

extension RecordStore where Kind == UserCreated {
    /// Copies the records written under `user` into a new store file at `path`, keeping nothing else there (no
    /// pending changes, no sync state): the data of an account the device no longer syncs with, kept apart.
    ///
    /// The copy is built under a temporary name and renamed into place, so `path` holds a whole archive or none.
    ///
    /// - Parameters:
    ///   - user: The account whose records to keep.
    ///   - path: The archive file; it must not exist.
    /// - Returns: How many records the archive holds.
    /// - Throws: ``StoreError`` when the copy cannot be made; the active store is not changed either way.
    @discardableResult
    public func archiveRecords(of user: UserRecordID, to path: String) throws(StoreError) -> Int {
        let temporary = path + ".partial"
        do {
            try FileSystem.removeItem(temporary)
            try database.withConnection { connection throws in
                try connection.run("VACUUM INTO ?", .text(temporary))
            }
            let archive = try Connection(path: temporary, mode: .readWrite)
            try archive.transaction {
                try archive.run(
                    "DELETE FROM records WHERE origin_user IS NOT ? OR origin_user IS NULL", .text(user.recordName))
                try archive.execute("DELETE FROM pending_changes; DELETE FROM sync_state; DELETE FROM refetch_seen")
                try archive.run(
                    "INSERT OR REPLACE INTO store_meta (key, value) VALUES ('archived_user', ?)", .text(user.recordName)
                )
            }
            let count = Int(try archive.scalarInt("SELECT count(*) FROM records") ?? 0)
            try archive.execute("PRAGMA journal_mode = WAL")
            try FileSystem.move(temporary, to: path)
            return count
        } catch {
            try? FileSystem.removeItem(temporary)
            throw StoreError.from(error, store: path)
        }
    }
}
