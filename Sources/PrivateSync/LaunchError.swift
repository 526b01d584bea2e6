/// The kinds of ``LaunchError``. Numbered from 1 in the order declared; a new kind is added at the end, so a
/// number never changes.
public enum LaunchErrorCode: Int, Sendable, Hashable {
    /// The device has never been launched (for commands that act within the last launch).
    case neverLaunched = 1
    /// A file of the app (a store, the launch record, the preferences) is damaged; it was left unchanged.
    case damagedFile
    /// A file could not be written or a folder created.
    case fileSystem
    /// A store failed (a full disk, an I/O error).
    case storage
}

/// A launch that could not complete (as opposed to one that fell back, which succeeds with a paused status).
public typealias LaunchError = CodedError<LaunchErrorCode>
