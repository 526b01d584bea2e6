/// What a change waiting to be sent does to its record (the `kind` column of `pending_changes`).
public enum PendingChangeKind: String, Sendable, Hashable {
    /// The record was created or changed: send it.
    case save
    /// The record was deleted: send its deletion.
    case delete
}
