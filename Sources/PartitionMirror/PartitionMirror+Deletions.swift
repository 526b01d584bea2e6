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
            marked = try store.syncSnapshot { try $0.engineState().deletionsUnrecorded }
        } catch {
            note(MirrorError(.store, "could not read the records deleted here", underlying: error))
            return false
        }
        if !marked.isEmpty {
            var changed = false
            for name in marked where bookkeeping.forgetFirstSave(of: name) { changed = true }
            if changed { guard persistBookkeeping() else { return false } }
            let cleared = write("clear the marks of records deleted here") { transaction -> Bool in
                try transaction.updateEngineState { $0.deletionsUnrecorded.subtract(marked) }
                return true
            }
            guard cleared == true else { return false }
        }
        deletionsSettled = true
        return true
    }
}
