import DeviceStore
import PrivateSync

extension PartitionMirror {
    /// Makes the bookkeeping forget the first saves of the records the store marks as deleted here
    /// (``EngineState/deletionsUnrecorded``, written in each delete's own transaction), writes it, and only then
    /// clears those marks. The bookkeeping is a file apart from the store: a process killed between a delete's
    /// commit and that file's write left the name among the first saves that may have landed, and a record made
    /// later under it was taken for the old one, which another device's deletion of the old one then deleted (an
    /// acknowledged write lost). Killed between the file's write and the clearing, the marks are settled again, which
    /// changes nothing: no first save is written down while a mark is left.
    ///
    /// - Returns: Whether no mark is left; a failure to read or write is kept in ``persistenceErrors``.
    @discardableResult
    func settleDeletionsUnrecorded() -> Bool {
        guard !deletionsSettled else { return true }
        let marked: Set<String>
        do {
            marked = try Self.deletionsUnrecorded(in: store)
        } catch {
            note(MirrorError(.store, "could not read the records deleted here", underlying: error))
            return false
        }
        if !marked.isEmpty {
            // Written whatever memory held: after a failed write, memory may have forgotten what the file still says.
            bookkeeping.forgetFirstSaves(of: marked)
            guard persistBookkeeping() else { return false }
            do {
                try Self.clearDeletionsUnrecorded(marked, in: store)
            } catch {
                note(MirrorError(.store, "could not clear the marks of records deleted here", underlying: error))
                return false
            }
        }
        deletionsSettled = true
        return true
    }

    /// ``settleDeletionsUnrecorded()`` from outside a running mirror (a command's delete, under the mirror's folder
    /// lock): the bookkeeping file read, the marked names forgotten, the file written, then the marks cleared.
    ///
    /// - Parameters:
    ///   - store: The user-created store.
    ///   - path: The bookkeeping file.
    ///   - durability: How much the file's write survives.
    /// - Throws: ``MirrorError`` `damagedBookkeeping` for a file that cannot be read; what reading or writing the
    ///   store or the file throws. The marks stay then, for the next mirror to settle.
    static func settleDeletionsUnrecorded(
        in store: RecordStore<UserCreated>, bookkeepingAt path: String, durability: Durability
    ) throws {
        let marked = try deletionsUnrecorded(in: store)
        guard !marked.isEmpty else { return }
        var bookkeeping = try readBookkeeping(at: path)
        bookkeeping.forgetFirstSaves(of: marked)
        try writeBookkeeping(bookkeeping, to: path, durability: durability)
        try clearDeletionsUnrecorded(marked, in: store)
    }

    /// Deletes a record from the store, with the mark of its deletion in the same transaction when the bookkeeping may
    /// count it among the first saves that may have landed (``EngineState/deletionsUnrecorded``).
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - store: The user-created store.
    ///   - marked: Whether to mark it.
    /// - Returns: The record as it was.
    /// - Throws: `StoreError` for what the store refuses (`recordNotFound` among them); nothing is written then.
    static func delete(
        _ name: String, from store: RecordStore<UserCreated>, marked: Bool
    ) throws(StoreError)
        -> StoredRecord
    {
        try store.delete(name) { transaction in
            if marked { try transaction.updateNames(inListAt: .deletionsUnrecorded) { $0.insert(name) } }
            // A record made anew under the name is gone: one made later is another, made anew too, until the
            // deletion comes back in a fetch.
            try transaction.removeName(name, fromListAt: .creationsNotLanded)
            try transaction.updateNames(inListAt: .namesDeletedHere) { $0.insert(name) }
        }
    }

    /// The names the store marks as deleted here and not yet forgotten by the bookkeeping.
    ///
    /// - Parameter store: The user-created store.
    /// - Returns: The names.
    /// - Throws: `StoreError` when the store cannot be read.
    static func deletionsUnrecorded(in store: RecordStore<UserCreated>) throws -> Set<String> {
        try store.syncSnapshot { try $0.names(inListAt: .deletionsUnrecorded) }
    }

    /// Clears marks the bookkeeping now holds, in one transaction (a mark made since stays).
    ///
    /// - Parameters:
    ///   - names: The names settled.
    ///   - store: The user-created store.
    /// - Throws: `StoreError` when the store cannot be written.
    static func clearDeletionsUnrecorded(_ names: Set<String>, in store: RecordStore<UserCreated>) throws {
        try store.syncTransaction { try $0.updateNames(inListAt: .deletionsUnrecorded) { $0.subtract(names) } }
    }
}
