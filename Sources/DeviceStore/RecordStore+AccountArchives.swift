public import PrivateCloud
import PrivateSyncFileSystem

extension RecordStore where Kind == UserCreated {
    /// The first part of the name of every archive of `user`'s records in an archives folder: the archives are
    /// `UserCreated-<record name>-<index>.store`, the newest with the highest index.
    ///
    /// - Parameter user: The account.
    /// - Returns: The prefix.
    static func archivePrefix(of user: UserRecordID) -> String {
        "UserCreated-\(user.recordName)-"
    }

    /// Locks an archives' folder, made first (readable by its owner only) if missing: one start afresh, or one
    /// restore, at a time on a device, in this process or another (two would write one archive name, or remove
    /// archives the other is reading).
    ///
    /// - Parameter folder: The archives' folder.
    /// - Returns: The lock, held; the caller unlocks it.
    /// - Throws: ``StoreError`` `storage` when the folder cannot be made or locked.
    package static func lockAccountArchives(in folder: String) throws(StoreError) -> FileLock {
        do {
            try FileSystem.createDirectory(folder, permissions: 0o700)
            return try FileLock.exclusive(folder)
        } catch {
            throw StoreError(.storage, "cannot create \(folder)", underlying: error)
        }
    }

    /// Whether `folder` holds any archive of `user`'s records.
    ///
    /// - Parameters:
    ///   - user: The account.
    ///   - folder: The archives' folder.
    /// - Returns: Whether there is one to restore (`false` for a folder that is not there, or cannot be read).
    public static func hasAccountArchive(of user: UserRecordID, in folder: String) -> Bool {
        let prefix = archivePrefix(of: user)
        guard FileSystem.isDirectory(folder), let names = try? FileSystem.contents(ofDirectory: folder) else {
            return false
        }
        return names.contains { $0.hasPrefix(prefix) && $0.hasSuffix(".store") }
    }

    /// Writes the archive of `previous`'s records into `folder`, or finds the one a start-fresh interrupted after
    /// writing it left: the newest archive, when it holds exactly the records still here. Either way the archive
    /// returned holds exactly `active`, checked by reading it back, so the caller may remove them. The caller holds
    /// the folder's lock (one start-fresh at a time on a device, in any process) and a write transaction of this
    /// store, in which it read `active`.
    ///
    /// - Parameters:
    ///   - previous: The account whose records to archive.
    ///   - folder: The archives' folder.
    ///   - active: The records of `previous` this store holds, read in the caller's write transaction.
    ///   - deletesThrough: The last revision of a pending delete that goes with them (``archiveRecords(of:to:deletesThrough:)``).
    /// - Returns: The archive and how many records it holds.
    /// - Throws: ``StoreError`` when the archive cannot be read or written, or `storage` when the archive written
    ///   does not hold exactly `active` (nothing may be removed then).
    public func writeAccountArchive(
        of previous: UserRecordID, in folder: String, holding active: ArchivableRows, deletesThrough: Int64? = nil
    ) throws(StoreError) -> (path: String, records: Int) {
        let prefix = Self.archivePrefix(of: previous)
        var index = 1
        while FileSystem.exists("\(folder)/\(prefix)\(index).store") { index += 1 }
        let path = "\(folder)/\(prefix)\(index).store"
        if index > 1 {
            let newest = "\(folder)/\(prefix)\(index - 1).store"
            let archived = try archivedRows(of: previous, at: newest)
            if archived == active { return (newest, archived.count) }
        }
        let count = try archiveRecords(of: previous, to: path, deletesThrough: deletesThrough)
        guard try archivedRows(of: previous, at: path) == active else {
            throw StoreError(
                .storage,
                "the archive \(path) does not hold the records of \(previous.recordName) the store holds; "
                    + "nothing was removed")
        }
        return (path, count)
    }

    /// Brings back every archive of `user` in `folder` (whose lock the caller holds), newest first, removing each
    /// once its records are back (committed): nothing is kept twice.
    ///
    /// Newest first, because two archives can hold one record: a start-fresh killed after it wrote its archive and
    /// before its removal committed leaves that archive behind with the records still in the store, and the next
    /// start-fresh writes a newer one, with what the user changed meanwhile. A restore keeps what the store holds of
    /// a name, so the first archive restored wins: in name order, the older copy came back and the edit was lost
    /// (seed 1041 of the app simulator's sweep at 2326e39). Older archives only fill in what the newer ones lack.
    ///
    /// - Parameters:
    ///   - user: The account whose archives to restore.
    ///   - folder: The archives' folder.
    /// - Throws: ``StoreError`` when the folder cannot be read or an archive cannot be brought back or removed.
    public func restoreAccountArchives(of user: UserRecordID, in folder: String) throws(StoreError) {
        guard FileSystem.isDirectory(folder) else { return }
        let prefix = Self.archivePrefix(of: user)
        let archives: [(index: Int, name: String)]
        do {
            archives = try FileSystem.contents(ofDirectory: folder).compactMap { name in
                guard name.hasPrefix(prefix), name.hasSuffix(".store"),
                    let index = Int(name.dropFirst(prefix.count).dropLast(".store".count))
                else { return nil }
                return (index, name)
            }
        } catch {
            throw StoreError(.storage, "cannot read \(folder)", underlying: error)
        }
        for archive in archives.sorted(by: { $0.index > $1.index }) {
            try restoreArchive(at: "\(folder)/\(archive.name)")
            try removeRestoredArchive(at: "\(folder)/\(archive.name)")
        }
    }
}
