import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The private databases of every account, in memory: the servers behind ``MemoryContainer``s.
///
/// Devices that share a `MemoryCloud` and sign into the same account see the same database, as devices on one
/// iCloud account do. It offers no way to list accounts; tests and the simulator read one account's records by
/// naming the account, as the audit reads one file.
public final class MemoryCloud: Sendable {
    private struct Key: Hashable {
        let account: AccountID
        let container: ContainerIdentifier
    }

    // Each storage is used only while this lock is held.
    private let databases: Mutex<[Key: MemoryDatabaseStorage]> = Mutex([:])
    private let clock: any WallClock

    /// Creates an empty cloud.
    ///
    /// - Parameter clock: Used to tell databases apart when one is created again after being erased.
    public init(clock: any WallClock = SystemClock()) {
        self.clock = clock
    }

    func withDatabase<T: Sendable>(
        account: AccountID, container: ContainerIdentifier,
        _ body: (MemoryDatabaseStorage) throws(CloudError) -> T
    ) throws(CloudError) -> T {
        try databases.withLock { (databases: inout [Key: MemoryDatabaseStorage]) throws(CloudError) -> T in
            let key = Key(account: account, container: container)
            let storage: MemoryDatabaseStorage
            if let existing = databases[key] {
                storage = existing
            } else {
                let identity = "memory|\(account)|\(container)|\(clock.now().timeIntervalSinceReferenceDate)"
                storage = MemoryDatabaseStorage(
                    location: "memory:\(account)/\(container)",
                    databaseID: StableHash.hex(StableHash.fnv1a64(identity))
                        + StableHash.hex(StableHash.fnv1a64(identity, seed: 7)))
                databases[key] = storage
            }
            return try body(storage)
        }
    }

    /// Every record in `account`'s database for `container`: what a test or the simulator checks invariants on.
    ///
    /// - Parameters:
    ///   - account: The account.
    ///   - container: The container.
    /// - Returns: The records, sorted by identifier; empty when the account never used the container.
    public func records(account: AccountID, container: ContainerIdentifier) -> [Record] {
        databases.withLock { databases in
            (databases[Key(account: account, container: container)]?.allRecords() ?? []).sorted {
                $0.recordID < $1.recordID
            }
        }
    }
}

/// A private container whose databases live in a ``MemoryCloud``: the fast twin of ``FileContainer`` for tests
/// and simulation, with the same semantics (both run `PrivateDatabase`) and the same conformance suite.
public final class MemoryContainer: StorageBackedContainer {
    public let identifier: ContainerIdentifier
    /// The device's account session, which routes every call.
    public let session: AccountSession
    private let cloud: MemoryCloud
    private let clock: any WallClock
    private let limits: CloudLimits
    private let deployed: DeployedSchema

    /// Creates a container handle.
    ///
    /// - Parameters:
    ///   - cloud: The servers.
    ///   - identifier: The container.
    ///   - session: The device's account session.
    ///   - clock: The server's clock, for modification dates.
    ///   - limits: The limits to enforce; CloudKit's by default.
    ///   - deployed: The production schema no save may change; none by default (every type fixed by its first save).
    public init(
        cloud: MemoryCloud, identifier: ContainerIdentifier, session: AccountSession,
        clock: any WallClock = SystemClock(), limits: CloudLimits = .cloudKit, deployed: DeployedSchema = .none
    ) {
        self.deployed = deployed
        self.cloud = cloud
        self.identifier = identifier
        self.session = session
        self.clock = clock
        self.limits = limits
    }

    func withDatabase<T: Sendable>(
        of account: AccountID, _ body: (PrivateDatabase<MemoryDatabaseStorage>) throws(CloudError) -> T
    ) throws(CloudError) -> T {
        try cloud.withDatabase(account: account, container: identifier) { storage throws(CloudError) in
            try body(PrivateDatabase(storage: storage, limits: limits, clock: clock, deployed: deployed))
        }
    }
}
