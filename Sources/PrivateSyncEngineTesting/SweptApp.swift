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
    /// - Returns: The items; the sweep compares them with ``DelegateSweep``'s server snapshot of the account, and,
    ///   for an app that shows a status, reads them after every step while it reads up to date.
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

    /// The user turns sync on again while the app is paused for a deletion of its data from iCloud settings
    /// (``SweptStatus/paused(_:)`` with ``SweptStatus/Cause/userDeletedZone``): an app that waits for the user's
    /// word before it uploads again (as the app's own engine does: "turn sync off and on to upload this device's
    /// data again") uploads what it holds. The sweep takes this action on a device that reads so paused, at random
    /// and, before the end, always; from then on the values the device held may be on the server again, and must
    /// be, unless a later rule forgives them.
    ///
    /// - Returns: Whether the app was paused for the deletion and now uploads again; the default, for an app that
    ///   never waits for the user, is `false`.
    /// - Throws: When the app cannot do it (its store refused); the sweep fails the run (`appFailed`).
    func userTurnsSyncOnAgain() async throws -> Bool

    /// The user chooses to sync with the account signed in while the app is paused because the data on the device
    /// belongs to another account (``SweptStatus/Cause/accountChanged``): an app that keeps a left account's data
    /// until the user chooses (as the app's own engine does: "Your data stays on this device until you choose")
    /// puts it aside and starts afresh with the account signed in. The sweep takes this action on a device that reads
    /// so paused, at random and, before the end, always.
    ///
    /// - Returns: Whether the app was paused for it and now syncs with the account signed in; the default, for an
    ///   app that never keeps a left account's data, is `false`.
    /// - Throws: When the app cannot do it; the sweep fails the run (`appFailed`).
    func userStartsAfresh() async throws -> Bool

    /// Whether the app waits for the user after an app's deletion of its zone (`deleted`) as after the user's in
    /// Settings: it pauses, and uploads nothing into the zone until ``userTurnsSyncOnAgain()`` (the app's own engine
    /// and the demo app's mirror do). The sweep then holds it to the user's deletion's rule for both: a value the
    /// server held when its zone was deleted never comes back, unless a device the user answered held it, or its
    /// device had not heard it land before the deletion (at-least-once). `false`, the default, is Apple's sample's
    /// way, which deletes what the zone held and goes on.
    static var waitsForTheUserAfterAnAppsDeletion: Bool { get }
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

    /// Nothing to turn on again: the app never waits for the user after a deletion.
    ///
    /// - Returns: `false`.
    public func userTurnsSyncOnAgain() async throws -> Bool { false }

    /// Nothing to choose: the app never keeps a left account's data.
    ///
    /// - Returns: `false`.
    public func userStartsAfresh() async throws -> Bool { false }

    /// An app's deletion is not waited on: the app deletes what the zone held, as Apple's sample does.
    public static var waitsForTheUserAfterAnAppsDeletion: Bool { false }
}
