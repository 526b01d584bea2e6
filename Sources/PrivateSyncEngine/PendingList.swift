/// An ordered list of pending changes with at most one change per key (a record, or a zone), and the revision each
/// was last added at: what ``StateContents`` keeps for each of the state's two lists.
///
/// Adding, finding and removing a change cost a dictionary look-up, not a walk of the list: a send of 100,000
/// changes removes each as the server accepts it. Removed changes leave a hole that the list closes once holes
/// are half of it, so the order of the changes left is the order they were first added.
struct PendingList<Change: Hashable & Sendable, Key: Hashable & Sendable>: Sendable {
    /// A change and the revision it was last added at.
    struct Entry: Sendable {
        var change: Change
        var revision: UInt64
    }

    private var slots: [Entry?] = []
    private var positions: [Key: Int] = [:]
    private let key: @Sendable (Change) -> Key
    /// ``changes``, kept between readings: a delegate reads the pending changes for every batch, and a send removes
    /// them from the front, which only moves the start of this list (``trimmed``) instead of making it again. `nil`
    /// when a change elsewhere made it stale.
    private var listed: [Change]? = []
    /// How many changes at the start of ``listed`` were removed since it was made.
    private var trimmed = 0

    init(key: @escaping @Sendable (Change) -> Key) {
        self.key = key
    }

    /// The changes, in the order they were first added.
    var changes: [Change] {
        guard let listed else { return slots.compactMap { $0?.change } }
        return trimmed == 0 ? listed : Array(listed[trimmed...])
    }

    /// Lists the changes now, so that reading them is a copy of an array until the next change (the state calls it
    /// under its lock, where this value can change).
    mutating func prepareListing() {
        if listed == nil {
            listed = slots.compactMap { $0?.change }
        } else if trimmed > 0 {
            listed?.removeFirst(trimmed)
        }
        trimmed = 0
    }
    /// The changes with their revisions, in order.
    var entries: [Entry] { slots.compactMap { $0 } }
    var count: Int { positions.count }
    var isEmpty: Bool { positions.isEmpty }

    /// Adds a change: one of the same kind for the same key keeps its place and takes the new revision; one of the
    /// other kind is replaced, the new one going last.
    mutating func add(_ change: Change, revision: UInt64) {
        let key = key(change)
        if let position = positions[key], let existing = slots[position] {
            if existing.change == change {
                slots[position]?.revision = revision
                return
            }
            slots[position] = nil
            listed = nil
        }
        listed?.append(change)
        positions[key] = slots.count
        slots.append(Entry(change: change, revision: revision))
    }

    /// Removes a change if it is pending, and, when `revision` is given, only if it was last added before it.
    ///
    /// - Returns: Whether it was removed.
    @discardableResult
    mutating func remove(_ change: Change, addedBefore revision: UInt64? = nil) -> Bool {
        // One look-up: the position is taken out, and put back in the rare case the change may not leave.
        let key = key(change)
        guard let position = positions.removeValue(forKey: key) else { return false }
        guard let existing = slots[position], existing.change == change,
            revision.map({ existing.revision < $0 }) ?? true
        else {
            positions[key] = position
            return false
        }
        if let listed, trimmed < listed.count, listed[trimmed] == change {
            trimmed += 1
        } else {
            listed = nil
            trimmed = 0
        }
        slots[position] = nil
        if slots.count > 64 && positions.count < slots.count / 2 { compact() }
        return true
    }

    /// Whether any pending change satisfies `predicate`.
    func contains(where predicate: (Change) -> Bool) -> Bool {
        slots.contains { $0.map { predicate($0.change) } ?? false }
    }

    private mutating func compact() {
        slots = slots.filter { $0 != nil }
        positions = [:]
        for (position, entry) in slots.enumerated() {
            if let entry { positions[key(entry.change)] = position }
        }
    }
}
