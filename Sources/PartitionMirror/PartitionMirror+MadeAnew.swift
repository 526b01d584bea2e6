import DeviceStore
import PrivateSync

extension PartitionMirror {
    /// Marks a record about to be made under the name of one deleted here as made anew
    /// (``EngineState/creationsNotLanded``), in the insert's transaction: the deletion has not gone up (the older
    /// record may be on the server still, and the new one takes the deletion's place in the queue), or has and no
    /// fetch has brought it back yet (``EngineState/namesDeletedHere``). Until it lands, a deletion fetched is of the
    /// older one, even once a save of the new one has left without an answer.
    ///
    /// - Parameters:
    ///   - transaction: The insert's transaction, before the record is written.
    ///   - name: The new record's name.
    /// - Throws: `StoreError` when the store cannot be read or written.
    static func markIfMadeAgain(_ transaction: SyncTransaction, _ name: String) throws {
        guard
            try transaction.pendingChange(named: name)?.kind == .delete
                || transaction.names(inListAt: .namesDeletedHere).contains(name)
        else { return }
        try transaction.updateNames(inListAt: .creationsNotLanded) { $0.insert(name) }
    }

    /// Whether a record is one made anew here: marked (``EngineState/creationsNotLanded``), or made here and never
    /// gone up (no change tag, and no first save of it that may have landed).
    ///
    /// - Parameters:
    ///   - name: The record's name.
    ///   - marked: The names marked.
    ///   - mayBeOnServer: The records whose first save may have landed, or whose tag was cleared while on the server.
    ///   - transaction: The transaction that reads its change tag.
    /// - Returns: Whether it is.
    /// - Throws: `StoreError` when the store cannot be read.
    static func isMadeAnew(
        _ name: String, marked: Set<String>, mayBeOnServer: Set<String>, in transaction: SyncTransaction
    ) throws -> Bool {
        try marked.contains(name) || !mayBeOnServer.contains(name) && transaction.serverChangeTag(of: name) == nil
    }

    /// Keeps the mark of a record made anew (``EngineState/creationsNotLanded``: marked already, or made here and
    /// never gone up) through a merge with an older record under its name, in the merge's transaction: while the
    /// merge kept every field of its own and its save is still to go up, the record is still the new one, which a
    /// deletion of the older one fetched before it lands leaves alone; once a field of the server's won (a later edit
    /// of the older record, which a device may then delete having seen it), it is no longer, and a deletion wins over
    /// it as over any edit.
    ///
    /// - Parameters:
    ///   - transaction: The merge's transaction.
    ///   - name: The record's name.
    ///   - local: The record as it was here.
    ///   - merged: The record as the merge leaves it.
    ///   - pendingKept: Whether a save of it is still to go up after the merge.
    /// - Returns: Whether the record is marked now.
    /// - Throws: `StoreError` when the store cannot be written.
    @discardableResult
    static func keepMadeAnewMark(
        _ transaction: SyncTransaction, _ name: String, local: StoredRecord, merged: StoredRecord, pendingKept: Bool
    ) throws -> Bool {
        let marked = pendingKept && merged.fields == local.fields
        try transaction.updateNames(inListAt: .creationsNotLanded) { names in
            if marked { names.insert(name) } else { names.remove(name) }
        }
        return marked
    }
}
