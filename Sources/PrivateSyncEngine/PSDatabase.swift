/// A user's private database, as `CKDatabase`: what an engine's configuration names, and what a test writes to "on
/// the side", as Apple's sample tests do with `deleteRecordZone(withID:)` and `deleteRecord(withID:)`.
///
/// It wraps a PrivateCloud container handle: a `MemoryContainer` (devices sharing one `MemoryCloud`) or a
/// `FileContainer` (devices, and processes, sharing one folder), each with the account session of the device it
/// stands for. Every call goes to the database of the account signed in at that moment, as CloudKit's do.
public final class PSDatabase: Sendable, CustomStringConvertible {
    /// Which database a handle is, as `CKDatabase.Scope`. This fake has the private database only.
    public enum Scope: Int, Sendable, Hashable {
        /// The app's public database (not modelled).
        case `public` = 1
        /// The signed-in user's private database.
        case `private` = 2
        /// The databases other users share with this one (not modelled).
        case shared = 3
    }

    /// The container every call goes through; for a database that fronts the real CloudKit (the bridge's), one
    /// that refuses every call.
    public let container: any PrivateContainer
    /// The real database the requests go to instead, when this one fronts CloudKit.
    let forwarded: (any ForwardedDatabase)?

    /// Creates a handle on the private database a container reaches.
    ///
    /// - Parameter container: The container handle of one device: its account session routes every call.
    public init(container: any PrivateContainer) {
        self.container = container
        self.forwarded = nil
    }

    /// A database that fronts a real one (the bridge's `CKDatabase`).
    init(forwardingTo database: any ForwardedDatabase) {
        self.container = RefusingContainer()
        self.forwarded = database
    }

    /// Which database this is: always the private one.
    public var databaseScope: Scope { .private }

    /// The container's identifier, as CloudKit describes a database by its container.
    public var description: String { "PSDatabase(private, \(container.identifier))" }
}
