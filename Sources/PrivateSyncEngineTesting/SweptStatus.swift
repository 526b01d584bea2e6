/// What an app's settings screen says of its sync, in the terms a ``DelegateSweep`` holds it to, in both directions:
/// never on while nothing can sync, never paused without a cause that holds.
///
/// An app maps its own status onto this (``SweptApp/status()``); the sweep checks it after every step against what
/// it knows of the device (its account, the refusals its requests met, the zone deletions of its account), and once
/// everything has synced, that it reads on and up to date (signed in) or paused for the account (signed out).
public enum SweptStatus: Sendable, Hashable, CustomStringConvertible {
    /// The user has not asked for sync. Never true in a sweep: every device wants sync.
    case off
    /// Sync runs.
    case on(Detail)
    /// Sync the user asked for cannot run, for this cause.
    case paused(Cause)

    /// How sync is doing while on.
    public enum Detail: String, Sendable, Hashable, CaseIterable {
        /// No sync has run for the account signed in yet.
        case notYetSynced
        /// Changes wait to go up, or the first download has not finished.
        case syncing
        /// A transient failure (``Cause/transient``) the device met; the engine tries again.
        case waiting
        /// The device's disk refused a write (full), so the app could not keep what it fetched: it waits for room,
        /// and fetches it again. True only while a write was refused since the device's last fetch that went through.
        case waitingForRoom
        /// Nothing waits to go up, and the download has caught up.
        case upToDate
    }

    /// Why sync is paused (or, for ``transient``, waiting): each names a cause the sweep can see hold.
    public enum Cause: String, Sendable, Hashable, CaseIterable {
        /// No iCloud account is signed in.
        case noAccount
        /// The account is temporarily unavailable (a request met `accountTemporarilyUnavailable`).
        case accountUnavailable
        /// The user's iCloud storage is full (a save met `quotaExceeded`).
        case quotaExceeded
        /// The user deleted the app's data in Settings (the account's zone was purged).
        case userDeletedZone
        /// The data on the device belongs to another account than the one signed in (the device was signed into
        /// another before): the app waits for the user to choose (``SweptApp/userStartsAfresh()``).
        case accountChanged
        /// A transient failure (offline, the server busy or rate-limiting): a cause for waiting while on, never for a
        /// pause.
        case transient
        /// Any other cause (a build without the entitlement, a store that could not be created): none holds in a
        /// sweep, so a status that names one is a lie there.
        case other
    }

    /// `off`, `on (detail)` or `paused (cause)`.
    public var description: String {
        switch self {
        case .off: "off"
        case .on(let detail): "on (\(detail.rawValue))"
        case .paused(let cause): "paused (\(cause.rawValue))"
        }
    }
}
