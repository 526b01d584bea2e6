@_exported import DeviceStore
import FileSystem
@_exported import PrivateCloud
@_exported import PrivateSync
@_exported import SimulatedWorld

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A simulated world in a temporary folder, for a team's own integration tests: devices, accounts, a controllable
/// clock, scripted faults, and the real stores, engine and container underneath. The folder is removed when the
/// value is released.
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
    /// The clock every device and container reads; it moves only when told to.
    public let clock: ManualClock
    /// Faults for every container call, in the order scripted.
    public let faults: ScriptedFaults

    /// Creates a world in a new temporary folder.
    ///
    /// - Parameters:
    ///   - backend: Where the accounts' databases live; memory by default (fast), or files.
    ///   - partition: The schema and its partition; the demo health schema by default.
    ///   - containerIdentifier: The container the app syncs with.
    ///   - observer: Called with every engine event.
    /// - Throws: ``WorldError`` when the folder cannot be created.
    public init(
        backend: ContainerBackend = .memory, partition: SyncPartition = .demoHealth,
        containerIdentifier: ContainerIdentifier = World.demoContainerIdentifier,
        observer: (@Sendable (SyncEvent) -> Void)? = nil
    ) throws {
        do {
            directory = try FileSystem.makeTemporaryDirectory(prefix: "privatesync-world")
        } catch {
            throw WorldError(.fileSystem, "cannot create a temporary folder: \(error)")
        }
        clock = ManualClock()
        faults = ScriptedFaults()
        world = try World.create(
            at: directory + "/world", partition: partition, containerIdentifier: containerIdentifier,
            options: World.Options(
                backend: backend, faults: faults, clock: clock, durability: .survivesProcessCrash, observer: observer))
    }

    deinit {
        try? FileSystem.removeItem(directory)
    }

    /// Installs the app on a new device.
    ///
    /// - Parameters:
    ///   - name: The device's name.
    ///   - account: The iCloud account signed in, or `nil` for none.
    ///   - sync: The sync switch as restored from a backup, or `nil` for never set.
    ///   - entitlement: Whether the build has the iCloud entitlement.
    @discardableResult
    public func addDevice(
        _ name: String, account: String?, sync: Bool?, entitlement: Bool = true
    ) throws -> SimulatedDevice {
        let account = try account.map { try AccountID($0) }
        return try world.addDevice(name, account: account, syncPreference: sync, entitlement: entitlement)
    }

    /// Launches the app on a device (a cold start).
    public func launch(
        _ name: String, options: LaunchSequence.Options = .init(), crashSwitch: CrashSwitch? = nil,
        wrapContainer: World.ContainerWrapper? = nil
    ) throws -> LaunchedApp {
        try world.launch(name, options: options, crashSwitch: crashSwitch, wrapContainer: wrapContainer)
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
    /// - Throws: `IdentifierError` for an invalid account or device name, ``WorldError`` `invalidName` for an
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
