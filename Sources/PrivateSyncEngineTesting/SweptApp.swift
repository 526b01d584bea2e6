#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A team's app on one device of a ``DelegateSweep``: its sync delegate, its data, and the engine it made.
///
/// The sweep builds one from a ``SweepDevice`` at every launch (the first, and after each crash): the app reads what
/// it persisted in the device's folder, makes its `PSSyncEngine` from the state serialization it kept, over the
/// device's database and scheduler, and goes on. The sweep drives the engine it hands back, and reads what the user
/// would see.
public protocol SweptApp: AnyObject, Sendable {
    /// The engine the app syncs with. The app may make a new one (Apple's sample does after a sign-out); the sweep
    /// reads this each time it syncs.
    var syncEngine: PSSyncEngine { get async }

    /// What the user sees on this device: an entry per item (its record name, say) and its content as text.
    ///
    /// - Returns: The items; the sweep compares them with ``DelegateSweep``'s server snapshot of the account.
    func snapshot() async -> [String: String]

    /// Keeps what the app persisted, as it is this instant, for the launch after a crash: copies `folder` (this
    /// launch's) into `next` (the next launch's, which does not exist yet).
    ///
    /// The default copies the files. An app whose files are databases copies them through their own library (a
    /// SQLite store with `VACUUM INTO`): nothing but SQLite may open a database file while a connection to it may
    /// exist, and the crashed launch's connections still do.
    ///
    /// - Parameters:
    ///   - folder: This launch's folder.
    ///   - next: The next launch's folder.
    /// - Throws: When the copy cannot be made; the sweep then fails the run (`appFailed`).
    func preserve(_ folder: URL, into next: URL) throws

    /// What the app's settings screen says of its sync now, or `nil` for an app that shows none (the default): the
    /// sweep then checks no status.
    ///
    /// - Returns: The status, as the user would read it this instant.
    func status() async -> SweptStatus?
}

extension SweptApp {
    /// Copies the folder's files.
    ///
    /// - Parameters:
    ///   - folder: This launch's folder.
    ///   - next: The next launch's folder.
    /// - Throws: What the copy throws.
    public func preserve(_ folder: URL, into next: URL) throws {
        try FileManager.default.copyItem(at: folder, to: next)
    }

    /// No status: the sweep checks none.
    ///
    /// - Returns: `nil`.
    public func status() async -> SweptStatus? { nil }
}
