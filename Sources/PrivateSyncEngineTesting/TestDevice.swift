/// A device of a ``SyncEngineTestCloud``: an account session, and a database handle through the cloud's faults.
///
/// Sign it in, out or over to another account at any time: as on a device, every call goes to whoever is signed in
/// when it is made, a request made for one account and overtaken by a switch is cancelled, and the cloud's
/// scheduler is told, as `CKAccountChanged` tells an app.
public final class TestDevice: Sendable {
    /// The device's name, which faults can be aimed at.
    public let name: String
    /// The device's iCloud account session.
    public let session: AccountSession
    /// The private database as this device reaches it: what an engine's configuration names.
    public let database: PSDatabase
    /// The cloud the device belongs to.
    public let cloud: SyncEngineTestCloud
    private let container: DeviceContainer

    init(name: String, session: AccountSession, container: DeviceContainer, cloud: SyncEngineTestCloud) {
        self.name = name
        self.session = session
        self.container = container
        self.database = PSDatabase(container: container)
        self.cloud = cloud
    }

    /// Whether every modify request of this device is atomic, whatever its batch says: custom zones are observed
    /// to behave so (one failing record fails its whole zone's batch with `batchRequestFailed`; sqlite-data issue
    /// 315), and a delegate must cope with it.
    public var forcesAtomicByZone: Bool {
        get { container.forcesAtomicByZone }
        set { container.forcesAtomicByZone = newValue }
    }

    /// Makes an engine for this device, on the cloud's scheduler.
    ///
    /// - Parameters:
    ///   - delegate: The delegate (the engine holds it weakly: keep it).
    ///   - stateSerialization: The state the delegate persisted, or `nil` for a first launch.
    ///   - automaticallySync: Whether the engine schedules its own syncs on the cloud's scheduler; `false` by
    ///     default, for tests that call `fetchChanges` and `sendChanges` themselves.
    /// - Returns: The engine.
    public func makeEngine(
        delegate: any PSSyncEngineDelegate, stateSerialization: PSSyncEngine.State.Serialization?,
        automaticallySync: Bool = false
    ) -> PSSyncEngine {
        var configuration = PSSyncEngine.Configuration(
            database: database, stateSerialization: stateSerialization, delegate: delegate)
        configuration.automaticallySync = automaticallySync
        configuration.scheduler = cloud.scheduler
        return PSSyncEngine(configuration)
    }

    /// Signs into an account (switching, if another is signed in).
    ///
    /// - Parameter account: The account.
    /// - Throws: `IdentifierError` for an account name that is not a valid account.
    public func signIn(_ account: String) throws(IdentifierError) {
        session.signIn(try AccountID(account))
        cloud.scheduler.scheduleAccountChecks()
    }

    /// Signs out.
    public func signOut() {
        session.signOut()
        cloud.scheduler.scheduleAccountChecks()
    }

    /// Changes the signed-in account's status (restricted, temporarily unavailable, available again …).
    ///
    /// - Parameter status: The status.
    public func setAccountStatus(_ status: AccountStatus) {
        session.setStatus(status)
        cloud.scheduler.scheduleAccountChecks()
    }
}
