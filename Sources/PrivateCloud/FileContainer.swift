import PrivateSyncFileSystem
import PrivateSyncSQLite
import Synchronization

/// A private container whose databases are SQLite files: one per account, at
/// `<cloud root>/<account>/<container identifier>.sqlite`, owner-only (0600) in an owner-only folder.
///
/// This is the default backend. A file outlives the process, can be opened by several processes at once (WAL, a
/// busy timeout, writes that take the lock up front), and can be read with `sqlite3`; its tables are described in
/// `docs/container.md`. A killed process leaves each request applied whole or not at all. A file that is damaged or
/// not a container database fails every call with `internalError` naming the file, and is never written to.
public final class FileContainer: StorageBackedContainer {
    public let identifier: ContainerIdentifier
    /// The folder that holds every account's folder.
    public let cloudRoot: String
    /// The device's account session, which routes every call.
    public let session: AccountSession
    private let clock: any WallClock
    private let limits: CloudLimits
    private let durability: Durability
    private let verifyIntegrity: Bool
    private let verificationMemo: VerificationMemo?
    private let deployed: DeployedSchema
    private let openDatabases: Mutex<[AccountID: SQLiteDatabaseStorage]> = Mutex([:])

    /// Creates a container handle. Files are opened (and created) at the first call for each account.
    ///
    /// - Parameters:
    ///   - cloudRoot: The folder holding every account's folder.
    ///   - identifier: The container.
    ///   - session: The device's account session.
    ///   - clock: The server's clock, for modification dates.
    ///   - limits: The limits to enforce; CloudKit's by default.
    ///   - durability: How much a commit survives; power loss by default.
    ///   - verifyIntegrity: Whether to check every page of an existing file when first opening it.
    ///   - verificationMemo: Where checked states are remembered, to check a file once per change rather than at
    ///     every opening; `nil` checks at every opening.
    ///   - deployed: The production schema no save may change; none by default (every type fixed by its first save).
    public init(
        cloudRoot: String, identifier: ContainerIdentifier, session: AccountSession,
        clock: any WallClock = SystemClock(), limits: CloudLimits = .cloudKit,
        durability: Durability = .survivesPowerLoss, verifyIntegrity: Bool = false,
        verificationMemo: VerificationMemo? = nil, deployed: DeployedSchema = .none
    ) {
        self.deployed = deployed
        self.verificationMemo = verificationMemo
        self.cloudRoot = cloudRoot
        self.identifier = identifier
        self.session = session
        self.clock = clock
        self.limits = limits
        self.durability = durability
        self.verifyIntegrity = verifyIntegrity
    }

    /// The file that holds `account`'s database for `identifier`.
    ///
    /// - Parameters:
    ///   - cloudRoot: The folder holding every account's folder.
    ///   - account: The account.
    ///   - identifier: The container.
    /// - Returns: `<cloudRoot>/<account>/<identifier>.sqlite`.
    public static func databasePath(cloudRoot: String, account: AccountID, identifier: ContainerIdentifier) -> String {
        "\(cloudRoot)/\(account.rawValue)/\(identifier.rawValue).sqlite"
    }

    func withDatabase<T: Sendable>(
        of account: AccountID, _ body: (PrivateDatabase<SQLiteDatabaseStorage>) throws(CloudError) -> T
    ) throws(CloudError) -> T {
        try openDatabases.withLock { (databases: inout [AccountID: SQLiteDatabaseStorage]) throws(CloudError) -> T in
            let storage: SQLiteDatabaseStorage
            if let open = databases[account] {
                storage = open
            } else {
                let path = Self.databasePath(cloudRoot: cloudRoot, account: account, identifier: identifier)
                do {
                    try FileSystem.createDirectory(FileSystem.parentDirectory(of: path), permissions: 0o700)
                    storage = try SQLiteDatabaseStorage(
                        path: path, account: account, containerID: identifier, clock: clock, durability: durability,
                        verifyIntegrity: verifyIntegrity, verificationMemo: verificationMemo)
                } catch {
                    throw CloudError.storageFailure(error, location: path)
                }
                databases[account] = storage
            }
            return try body(PrivateDatabase(storage: storage, limits: limits, clock: clock, deployed: deployed))
        }
    }
}
