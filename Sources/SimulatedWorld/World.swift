public import DemoSchema
public import DeviceStore
import PartitionMirror
public import PrivateCloud
public import PrivateCloudFaults
public import PrivateSync
import PrivateSyncFileSystem
import PrivateSyncJSON
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a world keeps its accounts' private databases.
public enum ContainerBackend: String, Sendable, Hashable, CaseIterable {
    /// SQLite files under `<home>/cloud`: the default, and what the CLI uses.
    case file
    /// A `MemoryCloud` in this process: for fast tests and simulation.
    case memory
}

/// A simulated world of devices and iCloud accounts, on disk.
///
/// ```
/// <home>/world.json                              the world's settings (container identifier)
/// <home>/schema.json                             the schema and its partition
/// <home>/faults.sqlite                           faults waiting for the next commands (file backend)
/// <home>/cloud/<account>/<container>.sqlite      each account's private database (file backend)
/// <home>/devices/<name>/                         each device (see SimulatedDevice)
/// ```
///
/// The CLI is a thin layer over this type, and `PrivateSyncTesting` hands it to a team's own tests.
public final class World: Sendable {
    /// How a world is opened.
    public struct Options: Sendable {
        /// Where the accounts' databases live.
        public var backend: ContainerBackend
        /// Faults for every container call; `nil` uses `<home>/faults.sqlite` with the file backend, none in memory.
        public var faults: (any FaultSource)?
        /// Where time comes from.
        public var clock: any WallClock
        /// Where new record names come from.
        public var names: any RecordNameSource
        /// How much a commit survives.
        public var durability: Durability
        /// Called with every engine event of every device.
        public var observer: (@Sendable (SyncEvent) -> Void)?
        /// Whether to check every page of a store or container file when opening it (the CLI does).
        public var verifyIntegrity: Bool
        /// The clock of each device, by name, when devices keep their own time (the simulator's skewed clocks); the
        /// world's clock otherwise. The accounts' servers always use ``clock``.
        package var deviceClock: (@Sendable (_ device: String) -> any WallClock)?
        /// The limits every device's container enforces: CloudKit's unless a simulation draws smaller ones, so that
        /// fetches take several pages and sends several requests. Not saved with the world.
        public var limits: CloudLimits = .cloudKit

        /// Creates options: the file backend, the system clock, durable commits.
        public init(
            backend: ContainerBackend = .file, faults: (any FaultSource)? = nil, clock: any WallClock = SystemClock(),
            names: any RecordNameSource = UUIDRecordNames(), durability: Durability = .survivesPowerLoss,
            observer: (@Sendable (SyncEvent) -> Void)? = nil, verifyIntegrity: Bool = false
        ) {
            self.verifyIntegrity = verifyIntegrity
            self.backend = backend
            self.faults = faults
            self.clock = clock
            self.names = names
            self.durability = durability
            self.observer = observer
        }
    }

    private struct Settings: Encodable, JSONFile {
        var format: String
        var version: Int
        var containerIdentifier: String

        /// Reads `world.json` as `JSONEncoder` wrote it.
        static func read(_ reader: inout JSONReader) throws(JSONReadError) -> Settings {
            let settings = try reader.objectOfRequiredKeys(
                at: "the top level", keys: ["format", "version", "containerIdentifier"],
                filling: Settings(format: "", version: 0, containerIdentifier: "")
            ) { key, reader, settings throws(JSONReadError) in
                switch key {
                case "format": settings.format = try reader.string(at: "format")
                case "version": settings.version = try reader.int(at: "version")
                default: settings.containerIdentifier = try reader.string(at: "containerIdentifier")
                }
            }
            return settings
        }
    }

    /// The world's folder.
    public let home: String
    /// The schema and its partition.
    public let partition: SyncPartition
    /// The container every device's app syncs with.
    public let containerIdentifier: ContainerIdentifier
    /// How the world was opened.
    public let options: Options
    /// The in-process servers, with the memory backend.
    public let memoryCloud: MemoryCloud?
    /// The faults every container call meets.
    public let faults: (any FaultSource)?
    /// Where the states of files that passed a page-by-page check are remembered, when the world checks files
    /// (``Options/verifyIntegrity``): `<home>/verified.memo`, so that a file is checked once per change rather than
    /// at every command (see `VerificationMemo`).
    public let verificationMemo: VerificationMemo?
    /// Devices opened in this process, so that every handle on one device shares its account session.
    private let openDevices = Mutex<[String: SimulatedDevice]>([:])

    /// The name of the file, in the world's folder, that remembers which file states passed a page-by-page check.
    public static let verificationMemoName = "verified.memo"

    /// The demo's container identifier.
    public static let demoContainerIdentifier = try! ContainerIdentifier("iCloud.com.example.me")

    private init(
        home: String, partition: SyncPartition, containerIdentifier: ContainerIdentifier, options: Options
    ) throws(WorldError) {
        self.home = home
        self.partition = partition
        self.containerIdentifier = containerIdentifier
        self.options = options
        self.memoryCloud = options.backend == .memory ? MemoryCloud(clock: options.clock) : nil
        let memo = options.verifyIntegrity ? VerificationMemo(path: home + "/" + World.verificationMemoName) : nil
        self.verificationMemo = memo
        if let faults = options.faults {
            self.faults = faults
        } else if options.backend == .file {
            self.faults = PersistentFaults(
                path: home + "/faults.sqlite", verifyIntegrity: options.verifyIntegrity, verificationMemo: memo)
        } else {
            self.faults = nil
        }
    }

    /// The production schema every account's container holds to: the world's user-created types (see
    /// `SyncPartition.deployedSchema`), so that no client's save changes a type every device writes.
    public var deployedSchema: DeployedSchema { partition.deployedSchema }

    /// The folder holding every account's folder (file backend).
    public var cloudRoot: String { home + "/cloud" }
    /// The folder holding every device's folder.
    public var devicesRoot: String { home + "/devices" }

    // MARK: Creating and opening

    /// Creates a world. Refuses to touch anything already at `home` (an existing world, or any non-empty folder).
    ///
    /// - Parameters:
    ///   - home: The world's folder; it must not exist, or be empty.
    ///   - partition: The schema and its partition; the demo health schema by default.
    ///   - containerIdentifier: The container the app syncs with.
    ///   - options: How to open it.
    /// - Returns: The world.
    /// - Throws: ``WorldError`` `alreadyExists`, or `fileSystem`; nothing is left half-made.
    public static func create(
        at home: String, partition: SyncPartition = .demoHealth,
        containerIdentifier: ContainerIdentifier = demoContainerIdentifier, options: Options = Options()
    ) throws(WorldError) -> World {
        if FileSystem.exists(home) {
            if FileSystem.exists(home + "/world.json") {
                throw WorldError(.alreadyExists, "a world already exists at \(home); it was left untouched")
            }
            let contents = (try? FileSystem.contents(ofDirectory: home)) ?? ["?"]
            if !FileSystem.isDirectory(home) || !contents.isEmpty {
                throw WorldError(.alreadyExists, "\(home) exists and is not an empty folder; it was left untouched")
            }
        }
        // Build the world under a temporary name and move it into place, so a failure leaves nothing behind.
        let staging = home + ".creating-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            try FileSystem.removeItem(staging)
            try FileSystem.createDirectory(staging, permissions: 0o700)
            try FileSystem.createDirectory(staging + "/cloud", permissions: 0o700)
            try FileSystem.createDirectory(staging + "/devices", permissions: 0o700)
            try FileSystem.writeAtomically(partition.jsonBytes(), to: staging + "/schema.json")
            let settings = Settings(
                format: "privatesync-world", version: 1, containerIdentifier: containerIdentifier.rawValue)
            try FileSystem.writeAtomically(try JSONFileWriter.bytes(of: settings), to: staging + "/world.json")
            try FileSystem.move(staging, to: home)
        } catch {
            try? FileSystem.removeItem(staging)
            // Another process's `init` moved its world into place first: this one is an existing world, as if it had
            // come a moment later.
            if FileSystem.exists(home + "/world.json") {
                throw WorldError(.alreadyExists, "a world already exists at \(home); it was left untouched")
            }
            throw WorldError(.fileSystem, "cannot create a world at \(home)", underlying: error)
        }
        return try World(home: home, partition: partition, containerIdentifier: containerIdentifier, options: options)
    }

    /// Opens an existing world.
    ///
    /// - Parameters:
    ///   - home: The world's folder.
    ///   - options: How to open it.
    /// - Returns: The world.
    /// - Throws: ``WorldError`` `notFound` or `damaged`.
    public static func open(at home: String, options: Options = Options()) throws(WorldError) -> World {
        let settingsPath = home + "/world.json"
        guard FileSystem.exists(settingsPath) else {
            throw WorldError(.notFound, "no world at \(home)")
        }
        // Before anything is read: a link anywhere in the world (in place of a device's folder, an account's
        // folder, `Application Support`, a file) could lead a command to read, write or delete outside it.
        do {
            try FileSystem.refuseLinksAndSpecialFiles(under: home)
        } catch {
            throw WorldError(.damaged, underlying: error)
        }
        let settings: Settings
        do {
            settings = try Settings.read(json: try FileSystem.read(settingsPath))
        } catch {
            throw WorldError(.damaged, "\(settingsPath) cannot be read (it was left unchanged)", underlying: error)
        }
        guard settings.format == "privatesync-world", settings.version == 1 else {
            throw WorldError(.damaged, "\(settingsPath) is not a version-1 PrivateSync world; it was left unchanged")
        }
        let identifier: ContainerIdentifier
        let partition: SyncPartition
        do {
            identifier = try ContainerIdentifier(settings.containerIdentifier)
        } catch {
            throw WorldError(.damaged, "\(settingsPath) cannot be read (it was left unchanged)", underlying: error)
        }
        do {
            partition = try SyncPartition.load(fromFile: home + "/schema.json")
        } catch {
            throw WorldError(.damaged, "the world was left unchanged", underlying: error)
        }
        return try World(home: home, partition: partition, containerIdentifier: identifier, options: options)
    }

    // MARK: Devices

    /// Installs the app on a new device.
    ///
    /// - Parameters:
    ///   - name: The device's name.
    ///   - account: The iCloud account signed in, or `nil` for none.
    ///   - syncPreference: The sync switch as restored from a backup, or `nil` for never set (off).
    ///   - entitlement: Whether the build has the iCloud entitlement for the world's container.
    ///   - syncEngine: What syncs the build's user-created store: the app's own engine, or CKSyncEngine with the app
    ///     as its delegate (`MirroredApp`).
    /// - Returns: The device.
    /// - Throws: ``WorldError`` `deviceExists` or `invalidName`.
    @discardableResult
    public func addDevice(
        _ name: String, account: AccountID?, syncPreference: Bool?, entitlement: Bool = true,
        syncEngine: AppSyncEngine = .appEngine
    )
        throws(WorldError) -> SimulatedDevice
    {
        do {
            let device = try SimulatedDevice.install(
                at: devicesRoot + "/" + name, name: name, account: account,
                build: .build(
                    version: 1, withCloudKitFor: entitlement ? containerIdentifier : nil, syncEngine: syncEngine),
                syncPreference: syncPreference)
            openDevices.withLock { $0[name] = device }
            return device
        } catch {
            switch error.code {
            case .invalidName: throw WorldError(.invalidName, underlying: error)
            case .alreadyExists: throw WorldError(.deviceExists, "device \(name) already exists", underlying: error)
            default: throw WorldError(.fileSystem, underlying: error)
            }
        }
    }

    /// The device of that name.
    ///
    /// - Throws: ``WorldError`` `deviceNotFound`, `invalidName` or `damaged`.
    public func device(_ name: String) throws(WorldError) -> SimulatedDevice {
        do {
            try DeviceName.validate(name)
        } catch {
            throw WorldError(.invalidName, underlying: error)
        }
        if let open = openDevices.withLock({ $0[name] }) { return open }
        do {
            let device = try SimulatedDevice.open(at: devicesRoot + "/" + name)
            openDevices.withLock { $0[name] = device }
            return device
        } catch {
            if error.code == .notFound {
                throw WorldError(.deviceNotFound, "no device named \(name) in this world", underlying: error)
            }
            throw WorldError(.damaged, underlying: error)
        }
    }

    /// The names of every device, sorted.
    public func deviceNames() throws(WorldError) -> [String] {
        do {
            return try FileSystem.contents(ofDirectory: devicesRoot).filter {
                FileSystem.exists(devicesRoot + "/" + $0 + "/device.json")
            }
        } catch {
            throw WorldError(.fileSystem, underlying: error)
        }
    }

    // MARK: Launching

    /// The container a device signed in as `session` opens once its entitlement check passed: the world's backend,
    /// behind the world's faults, which know the device's name so that a fault can be aimed at it.
    private func container(
        _ identifier: ContainerIdentifier, session: AccountSession, device: String
    ) -> any PrivateContainer {
        func behindFaults<Base: PrivateContainer & ICloudSettingsControls & CloudServerControls>(
            _ base: Base
        ) -> any PrivateContainer {
            guard let faults else { return base }
            return FaultInjectingContainer(base: base, faults: faults, session: session, device: device)
        }
        if let memoryCloud {
            return behindFaults(
                MemoryContainer(
                    cloud: memoryCloud, identifier: identifier, session: session, clock: options.clock,
                    limits: options.limits, deployed: deployedSchema))
        }
        return behindFaults(
            FileContainer(
                cloudRoot: cloudRoot, identifier: identifier, session: session, clock: options.clock,
                limits: options.limits, durability: options.durability, verifyIntegrity: options.verifyIntegrity,
                verificationMemo: verificationMemo, deployed: deployedSchema))
    }

    /// Wraps the container a device opens: how tests and the simulator count calls, crash mid-call, or put a faulty double in the way.
    public typealias ContainerWrapper = @Sendable (any PrivateContainer) -> any PrivateContainer

    /// The launch environment of `device`: the world's schema, container, faults, clock and names.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - crashSwitch: A simulation's crash switch, if any.
    ///   - wrapContainer: Wraps the container the device opens (outside the faults), if given.
    public func environment(
        for device: SimulatedDevice, crashSwitch: CrashSwitch? = nil, wrapContainer: ContainerWrapper? = nil
    ) -> LaunchEnvironment {
        var environment = LaunchEnvironment(
            partition: partition, containerIdentifier: containerIdentifier,
            opener: TrappingContainerOpener { [self, session = device.session, name = device.name] identifier in
                let container = self.container(identifier, session: session, device: name)
                return wrapContainer?(container) ?? container
            },
            clock: options.deviceClock?(device.name) ?? options.clock,
            names: options.names, durability: options.durability, crashSwitch: crashSwitch,
            verifyIntegrity: options.verifyIntegrity, observer: options.observer)
        environment.verificationMemo = verificationMemo
        environment.delegateEngineFacts = MirrorEngineFacts()
        return environment
    }

    /// Launches the app on a device: a cold start running the launch sequence.
    ///
    /// - Throws: ``WorldError`` for an unknown device, `LaunchError` when the launch cannot complete.
    public func launch(
        _ name: String, options: LaunchSequence.Options = .init(), crashSwitch: CrashSwitch? = nil,
        wrapContainer: ContainerWrapper? = nil
    ) throws -> LaunchedApp {
        let device = try device(name)
        let environment = environment(for: device, crashSwitch: crashSwitch, wrapContainer: wrapContainer)
        return try LaunchSequence(device: device, environment: environment).run(options: options)
    }

    /// Reopens the app on a device as its last launch left it; read-only for a command that only reads.
    ///
    /// - Throws: ``WorldError`` for an unknown device, `LaunchError` `neverLaunched`.
    public func resume(
        _ name: String, crashSwitch: CrashSwitch? = nil, wrapContainer: ContainerWrapper? = nil, readOnly: Bool = false
    ) throws
        -> LaunchedApp
    {
        let device = try device(name)
        let environment = environment(for: device, crashSwitch: crashSwitch, wrapContainer: wrapContainer)
        return try LaunchSequence(device: device, environment: environment).resume(readOnly: readOnly)
    }

    // MARK: Containers

    /// The container file of `account` (file backend).
    public func containerPath(account: AccountID) -> String {
        FileContainer.databasePath(cloudRoot: cloudRoot, account: account, identifier: containerIdentifier)
    }

    /// Every record in `account`'s private database, read directly (not through any device). The file is checked
    /// page by page first when the world verifies files (``Options/verifyIntegrity``), as the CLI's does; the
    /// simulator, which reads it after every step, does not.
    ///
    /// - Throws: `DatabaseFileError` when the file is damaged.
    public func containerRecords(account: AccountID) throws -> [Record] {
        if let memoryCloud { return memoryCloud.records(account: account, container: containerIdentifier) }
        let path = containerPath(account: account)
        guard FileSystem.exists(path) else { return [] }
        return try ContainerFile.read(path, verifyingPages: options.verifyIntegrity, verificationMemo: verificationMemo)
            .records
    }
}
