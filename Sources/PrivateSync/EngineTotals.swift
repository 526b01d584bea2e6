/// What the sync engine moved since the store was created: what it reports, for hosts and the simulator to check
/// against what the container saw. Kept through a reset of the bookkeeping and a fresh start; each is named for
/// where it is counted.
public struct EngineTotals: Sendable, Hashable {
    /// Saves the server accepted.
    public package(set) var sentSaves = 0
    /// Deletions the server accepted.
    public package(set) var sentDeletes = 0
    /// Created or changed records fetched and applied.
    public package(set) var fetchedModifications = 0
    /// Deletions fetched and applied.
    public package(set) var fetchedDeletions = 0
    /// Conflicts resolved, whether found by a fetch or by a save.
    public package(set) var conflictsResolved = 0

    /// No totals: a store nothing has moved through yet.
    package init() {}
}
