@_exported public import DemoSchema
@_exported public import DeviceSimulation
@_exported public import DeviceStore
@_exported public import PrivateCloud
@_exported public import PrivateCloudFaults
@_exported public import PrivateSync
import PrivateSyncFileSystem
@_exported public import SimulatedWorld

#if canImport(FoundationEssentials)
    @_exported public import FoundationEssentials
#else
    @_exported public import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A simulated world in a temporary folder, for a team's own integration tests: devices, accounts, a controllable
/// clock (and one per device, which can be skewed), scripted faults, and the real stores, engine and container
/// underneath.
///
/// The folder is `privatesync-world-<pid>-XXXXXX` under `$TMPDIR` (else `/tmp`), or under the folder given to
/// ``init(backend:partition:containerIdentifier:names:temporaryDirectory:observer:deviceObserver:)``. It is removed
/// when the world and every app launched in it are released (an app keeps its world alive). A process that dies
/// before that (an exit test's child, a crash) leaves its folder; the next `TestWorld` made under the same parent
/// removes the folders of processes that no longer run (``removeLeftovers(in:)``).
///
/// ```swift
/// let world = try TestWorld()
/// try world.addDevice("phone", account: "alice", sync: true)
/// let phone = try world.launch("phone")
/// try phone.add("CheckIn", fields: ["mood": .int64(4), "date": .date(world.clock.now())])
/// await phone.sync()
/// #expect(try world.containerRecords(account: "alice").count == 1)
/// ```
public final class TestWorld: Sendable {
    /// The world.
    public let world: World
    /// The temporary folder that holds it.
    public let directory: String
    /// The clock every container reads, and every device unless its own clock (``clock(of:)``) is offset; it moves
    /// only when told to.
    public let clock: ManualClock
    /// Faults for every container call, in the order scripted.
    public let faults: ScriptedFaults
    /// Each device's clock, made when first asked for (at its first launch at the latest).
    private let deviceClocks: DeviceClocks
    /// Called with every engine event and the device it came from.
    private let deviceObserver: (@Sendable (_ device: String, _ event: SyncEvent) -> Void)?

    /// Creates a world in a new temporary folder.
    ///
    /// - Parameters:
    ///   - backend: Where the accounts' databases live; memory by default (fast), or files.
    ///   - partition: The schema and its partition; the demo health schema by default (a schema built in code:
    ///     `docs/testing.md`).
    ///   - containerIdentifier: The container the app syncs with.
    ///   - names: Where new record names come from (`add` without a name); new UUIDs by default,
    ///     `SeededRecordNames(seed:)` for names that repeat from run to run.
    ///   - temporaryDirectory: The folder to make the world's folder in; `$TMPDIR` (else `/tmp`) by default.
    ///   - observer: Called with every engine event of every device.
    ///   - deviceObserver: Called with every engine event and the name of the device it came from.
    /// - Throws: `WorldError` `fileSystem` when the folder cannot be created.
    public init(
        backend: ContainerBackend = .memory, partition: SyncPartition = .demoHealth,
        containerIdentifier: ContainerIdentifier = World.demoContainerIdentifier,
        names: any RecordNameSource = UUIDRecordNames(), temporaryDirectory: String? = nil,
        observer: (@Sendable (SyncEvent) -> Void)? = nil,
        deviceObserver: (@Sendable (_ device: String, _ event: SyncEvent) -> Void)? = nil
    ) throws {
        let parent = temporaryDirectory ?? Self.temporaryParent()
        Self.removeLeftovers(in: parent)
        do {
            directory = try FileSystem.makeTemporaryDirectory(prefix: "\(Self.folderPrefix)-\(getpid())", in: parent)
        } catch {
            throw WorldError(.fileSystem, "cannot create a temporary folder in \(parent)", underlying: error)
        }
        clock = ManualClock()
        faults = ScriptedFaults()
        let deviceClocks = DeviceClocks(base: clock)
        self.deviceClocks = deviceClocks
        self.deviceObserver = deviceObserver
        var options = World.Options(
            backend: backend, faults: faults, clock: clock, names: names, durability: .survivesProcessCrash,
            observer: observer)
        options.deviceClock = { name in deviceClocks.clock(of: name) }
        do {
            world = try World.create(
                at: directory + "/world", partition: partition, containerIdentifier: containerIdentifier,
                options: options)
        } catch {
            try? FileSystem.removeItem(directory)
            throw error
        }
    }

    deinit {
        try? FileSystem.removeItem(directory)
    }

    /// The clock of one device: the world's clock plus the device's own offset, which a test sets to skew the
    /// device or make its clock jump back. Set it before or after the device launches; the device reads it live.
    ///
    /// - Parameter device: The device's name.
    /// - Returns: Its clock (the same object every time).
    public func clock(of device: String) -> DeviceClock {
        deviceClocks.clock(of: device)
    }

    /// Installs the app on a new device.
    ///
    /// - Parameters:
    ///   - name: The device's name.
    ///   - account: The iCloud account signed in, or `nil` for none.
    ///   - sync: The sync switch as restored from a backup, or `nil` for never set.
    ///   - entitlement: Whether the build has the iCloud entitlement.
    ///   - syncEngine: What syncs the build's user-created store: the app's own engine, or CKSyncEngine with the app
    ///     as its delegate (open its mirror with `MirroredApp.open(_:)` after a launch).
    /// - Returns: The device.
    /// - Throws: `IdentifierError` for an invalid account name, `WorldError` `deviceExists` or `invalidName`.
    @discardableResult
    public func addDevice(
        _ name: String, account: String?, sync: Bool?, entitlement: Bool = true,
        syncEngine: AppSyncEngine = .appEngine
    ) throws -> SimulatedDevice {
        let account = try account.map { try AccountID($0) }
        return try world.addDevice(
            name, account: account, syncPreference: sync, entitlement: entitlement, syncEngine: syncEngine)
    }

    /// Launches the app on a device (a cold start). The app keeps this world (and its folder) alive.
    ///
    /// - Parameters:
    ///   - name: The device.
    ///   - options: Switches that turn the traps' fixes off (`skipDirectoryFix`, `skipEntitlementCheck`).
    ///   - crashSwitch: Makes the device's stores commit nothing once thrown (see ``CrashingContainer``).
    ///   - wrapContainer: Wraps the container the device opens (outside the scripted faults).
    ///   - resolver: The conflict policy; `FieldLevelLastWriterWins()` by default.
    ///   - retryPolicy: The backoff after transient failures; `.standard` by default.
    /// - Returns: The running app.
    /// - Throws: `WorldError` for an unknown device, `LaunchError` when the launch cannot complete.
    public func launch(
        _ name: String, options: LaunchSequence.Options = .init(), crashSwitch: CrashSwitch? = nil,
        wrapContainer: World.ContainerWrapper? = nil, resolver: (any ConflictResolver)? = nil,
        retryPolicy: RetryPolicy? = nil
    ) throws -> LaunchedApp {
        let device = try world.device(name)
        // The wrapper holds this world, so the app (whose environment holds the wrapper) keeps the folder alive.
        var environment = world.environment(
            for: device, crashSwitch: crashSwitch,
            wrapContainer: { [self] container in
                withExtendedLifetime(self) { wrapContainer?(container) ?? container }
            })
        if let resolver { environment.resolver = resolver }
        if let retryPolicy { environment.retryPolicy = retryPolicy }
        if let deviceObserver {
            let observer = environment.observer
            environment.observer = { event in
                observer?(event)
                deviceObserver(name, event)
            }
        }
        return try LaunchSequence(device: device, environment: environment).run(options: options)
    }

    /// The device of that name.
    public func device(_ name: String) throws -> SimulatedDevice {
        try world.device(name)
    }

    /// Every record in `account`'s private database.
    public func containerRecords(account: String) throws -> [Record] {
        try world.containerRecords(account: AccountID(account))
    }

    /// `account`'s private database as another client sees it (an older or newer build, another app): put, edit
    /// (also from a stale copy), delete, list records and zones, delete a zone, as `privatesync cloud` does.
    ///
    /// - Parameter account: The account.
    /// - Returns: A client of that account's database, meeting none of the scripted faults.
    /// - Throws: `IdentifierError` for an invalid account name.
    public func cloud(account: String) throws -> AccountCloud {
        world.cloud(account: try AccountID(account))
    }

    /// Scripts a fault for the next container calls it applies to, as `privatesync fault inject` does.
    ///
    /// - Parameters:
    ///   - kind: The kind.
    ///   - account: Only calls for this account, or any.
    ///   - device: Only calls from this device, or any.
    ///   - record: Only calls naming this record: the item a per-item fault fails, the change a delayed delivery
    ///     withholds.
    ///   - count: How many calls it strikes.
    ///   - after: How many calls it applies to that it lets through first.
    ///   - retryAfter: The retry-after it carries, for kinds that carry one.
    /// - Throws: `IdentifierError` for an invalid account or device name, `WorldError` `invalidName` for an
    ///   invalid record name.
    public func inject(
        _ kind: FaultKind, account: String? = nil, device: String? = nil, record: String? = nil, count: Int = 1,
        after: Int = 0, retryAfter: Double? = nil
    ) throws {
        let target = try account.map { try AccountID($0) }
        if let device { try DeviceName.validate(device) }
        if let record, let problem = CloudKitNames.problem(withRecordName: record) {
            throw WorldError(.invalidName, "invalid record name: \(problem)")
        }
        faults.add(
            Fault(kind, retryAfter: retryAfter, record: record), account: target, device: device, count: count,
            after: after)
    }

    /// Audits every container of the given accounts.
    public func audit(accounts: [String]) throws -> AuditReport {
        try world.audit(accounts: accounts.map { try AccountID($0) })
    }
}
