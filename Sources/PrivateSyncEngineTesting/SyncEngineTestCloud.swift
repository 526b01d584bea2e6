/// iCloud for tests of a CKSyncEngine-shaped delegate: every account's private database, in memory or in files,
/// devices signed into them, faults, a clock and a scheduler; and the hooks a test needs to make things happen on
/// the server.
///
/// ```swift
/// let cloud = try SyncEngineTestCloud()
/// let phone = try cloud.device("phone", signedInTo: "alice")
/// let engine = phone.makeEngine(delegate: contacts, stateSerialization: nil, automaticallySync: false)
/// try await engine.sendChanges()
/// try await cloud.otherClient(of: "alice").deleteRecordZone(withID: zoneID)  // another device, on the side
/// cloud.faults.add(Fault(.networkUnavailable), device: "phone")             // the next call of the phone fails
/// try engine.expectNothingPending()
/// ```
///
/// Devices of one cloud share its databases: several engines (Apple's two-device tests) sync through them, and, with
/// ``Storage/files(at:)``, so do engines in other processes that open a cloud on the same folder. Everything is
/// driven from the test: the ``clock`` moves when the test moves it, the ``scheduler`` runs automatic syncs when the
/// test runs it, and every server date comes from a ``SteppingClock`` on the test's clock, so a run replays exactly.
public final class SyncEngineTestCloud: Sendable {
    /// Where the databases live.
    public enum Storage: Sendable, Hashable {
        /// In this process's memory: the fastest, gone with the cloud.
        case memory
        /// In SQLite files under a folder (one per account): shared by every process that opens a cloud there,
        /// readable with `sqlite3`, and left for a test to inspect.
        case files(at: String)
    }

    /// Where the databases live.
    public let storage: Storage
    /// The container every device opens.
    public let containerIdentifier: ContainerIdentifier
    /// The test's clock: scheduled syncs and retries are due by it, and server dates follow it.
    public let clock: ManualClock
    /// The clock the databases stamp saves with: a millisecond later at each save, never behind ``clock``.
    public let serverClock: SteppingClock
    /// The scheduler every device's engine shares (``TestDevice/makeEngine(delegate:stateSerialization:automaticallySync:)``).
    public let scheduler: PSSyncScheduler
    /// Faults scripted for the devices' calls: aim one at a device, an account or a record
    /// (`faults.add(Fault(.zoneBusy, retryAfter: 30), device: "phone")`).
    public let faults: ScriptedFaults
    /// The limits the databases enforce; CloudKit's by default.
    public let limits: CloudLimits
    let memory: MemoryCloud

    /// Creates a cloud with no account in it.
    ///
    /// - Parameters:
    ///   - storage: Memory (the default) or files under a folder.
    ///   - containerIdentifier: The container; `iCloud.com.example.app` by default.
    ///   - clock: The test's clock; a manual clock at a fixed date by default.
    ///   - limits: The limits the databases enforce; CloudKit's by default (smaller ones make paging and split
    ///     requests happen with a few records).
    /// - Throws: `IdentifierError` for a container identifier CloudKit would refuse.
    public init(
        storage: Storage = .memory, containerIdentifier: String = "iCloud.com.example.app",
        clock: ManualClock = ManualClock(), limits: CloudLimits = .cloudKit
    ) throws(IdentifierError) {
        self.storage = storage
        self.containerIdentifier = try ContainerIdentifier(containerIdentifier)
        self.clock = clock
        self.serverClock = SteppingClock(following: clock)
        self.scheduler = PSSyncScheduler(clock: clock)
        self.faults = ScriptedFaults()
        self.limits = limits
        self.memory = MemoryCloud(clock: clock)
    }

    /// A device, signed into an account or into none; it reaches the cloud through the cloud's ``faults``.
    ///
    /// - Parameters:
    ///   - name: The device's name, which faults can be aimed at.
    ///   - account: The account it is signed into, or `nil` for none.
    /// - Returns: The device.
    /// - Throws: `IdentifierError` for an account name that is not a valid account.
    public func device(_ name: String, signedInTo account: String?) throws(IdentifierError) -> TestDevice {
        let session = AccountSession(account: try account.map { name throws(IdentifierError) in try AccountID(name) })
        let faulty = FaultInjectingContainerFactory.make(
            base: baseContainer(session: session), faults: faults, session: session, device: name)
        return TestDevice(name: name, session: session, container: DeviceContainer(base: faulty), cloud: self)
    }

    /// The database of an account as another client sees it (another device, the web, a server tool): its writes
    /// meet no fault, and each one schedules a fetch on every automatically syncing engine, as the server's push
    /// does.
    ///
    /// - Parameter account: The account.
    /// - Returns: The account's database.
    /// - Throws: `IdentifierError` for an account name that is not a valid account.
    public func otherClient(of account: String) throws(IdentifierError) -> PSDatabase {
        let session = AccountSession(account: try AccountID(account))
        return PSDatabase(container: PushingContainer(base: baseContainer(session: session), scheduler: scheduler))
    }

    /// Deletes a zone of an account with a chosen reason, as each of its causes does: `deleted` as an app does
    /// (`deleteRecordZone`), `purged` as the user does in Settings (later calls on it fail with `userDeletedZone`
    /// until an app creates it again), `encryptedDataReset` as an account recovery that resets encrypted data
    /// does. Then every automatically syncing engine is scheduled to fetch.
    ///
    /// - Parameters:
    ///   - zoneID: The zone.
    ///   - reason: Why it is deleted.
    ///   - account: The account.
    /// - Throws: `PSError` `zoneNotFound` when the zone does not exist; `IdentifierError` for an invalid account.
    public func deleteZone(
        _ zoneID: PSRecordZone.ID, reason: PSDatabase.DatabaseChange.Deletion.Reason, account: String
    ) async throws {
        let base = baseContainer(session: AccountSession(account: try AccountID(account)))
        let id = ZoneID(uncheckedName: zoneID.zoneName)
        do {
            switch reason {
            case .deleted: try await base.deleteZones([id])
            case .purged: try await base.deleteZoneFromICloudSettings(id)
            case .encryptedDataReset: try await base.purgeZoneForEncryptedDataReset(id)
            }
        } catch {
            throw PSError(error)
        }
        scheduler.schedulePushFetches()
    }

    /// A new handle on the cloud's databases for an account session, with no fault: for a test that wraps it in a
    /// container of its own (a `ForwardingContainer` that fails or watches some calls) and builds a
    /// `PSDatabase(container:)` on that.
    ///
    /// - Parameter session: The session that routes every call.
    /// - Returns: The handle.
    public func baseContainer(
        session: AccountSession
    ) -> any PrivateContainer & ICloudSettingsControls & CloudServerControls {
        switch storage {
        case .memory:
            MemoryContainer(
                cloud: memory, identifier: containerIdentifier, session: session, clock: serverClock, limits: limits)
        case .files(let folder):
            FileContainer(
                cloudRoot: folder, identifier: containerIdentifier, session: session, clock: serverClock,
                limits: limits, durability: .survivesProcessCrash)
        }
    }
}

/// Builds a fault-injecting container over a base known only by its protocols.
enum FaultInjectingContainerFactory {
    static func make(
        base: any PrivateContainer & ICloudSettingsControls & CloudServerControls, faults: any FaultSource,
        session: AccountSession, device: String
    ) -> any PrivateContainer {
        func open<Base: PrivateContainer & ICloudSettingsControls & CloudServerControls>(
            _ base: Base
        ) -> any PrivateContainer {
            FaultInjectingContainer(base: base, faults: faults, session: session, device: device)
        }
        return open(base)
    }
}
