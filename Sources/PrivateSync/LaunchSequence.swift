public import DeviceStore
public import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the host (the CLI, a test, the simulator) provides to every launch of the app.
public struct LaunchEnvironment: Sendable {
    /// The schema and its partition.
    public var partition: SyncPartition
    /// The container the app syncs with.
    public var containerIdentifier: ContainerIdentifier
    /// How the app opens its container (traps without the entitlement, as CloudKit does).
    public var opener: any ContainerOpener
    /// Where time comes from.
    public var clock: any WallClock
    /// Where new record names come from.
    public var names: any RecordNameSource
    /// How much a store commit survives.
    public var durability: Durability
    /// A simulation's crash switch, if any.
    public var crashSwitch: CrashSwitch?
    /// Whether to check every page of the stores when opening them (the CLI does: a damaged page anywhere is refused
    /// before anything is read or written).
    public var verifyIntegrity: Bool
    /// Where the states of store files that passed that check are remembered, so that a store is checked once per
    /// change rather than at every launch; `nil` checks at every launch.
    public var verificationMemo: VerificationMemo?
    /// The conflict policy.
    public var resolver: any ConflictResolver
    /// The backoff after transient failures.
    public var retryPolicy: RetryPolicy
    /// Called with every engine event.
    public var observer: (@Sendable (SyncEvent) -> Void)?
    /// The engine's facts of a build whose store CKSyncEngine syncs (``DelegateEngineFacts``), for its status; `nil`
    /// where no such build runs.
    public var delegateEngineFacts: (any DelegateEngineFacts)?

    /// Creates an environment.
    public init(
        partition: SyncPartition, containerIdentifier: ContainerIdentifier, opener: any ContainerOpener,
        clock: any WallClock = SystemClock(), names: any RecordNameSource = UUIDRecordNames(),
        durability: Durability = .survivesPowerLoss, crashSwitch: CrashSwitch? = nil, verifyIntegrity: Bool = false,
        resolver: any ConflictResolver = FieldLevelLastWriterWins(), retryPolicy: RetryPolicy = .standard,
        observer: (@Sendable (SyncEvent) -> Void)? = nil
    ) {
        self.partition = partition
        self.containerIdentifier = containerIdentifier
        self.opener = opener
        self.clock = clock
        self.names = names
        self.durability = durability
        self.crashSwitch = crashSwitch
        self.verifyIntegrity = verifyIntegrity
        self.resolver = resolver
        self.retryPolicy = retryPolicy
        self.observer = observer
    }
}

/// The app's launch sequence, step by step, as `docs/launch.md` describes it.
///
/// 1. Read the user's sync preference.
/// 2. Create `Library/Application Support` synchronously (the first trap's fix).
/// 3. If sync is wanted, check the entitlement and the account status BEFORE any container code runs (the second
///    trap's fix). If either fails, fall back to local, recording why.
/// 4. Open the local-only store (always local).
/// 5. Open the user-created store: cloud-configured if the checks passed, else local. A cloud store whose folder
///    is missing fails with Cocoa error 512; that is a fallback too.
/// 6. Open the container and start the engine.
///
/// The two switches in ``Options`` exist only to reproduce the traps.
public struct LaunchSequence: Sendable {
    /// Switches that turn the traps' fixes off.
    public struct Options: Sendable, Hashable {
        /// Skip step 2: on a genuine first launch with sync wanted, the cloud store then fails (trap 1).
        public var skipDirectoryFix: Bool
        /// Skip the entitlement check of step 3: without the entitlement, step 6 then traps (trap 2).
        public var skipEntitlementCheck: Bool

        /// Creates options; both fixes are on by default.
        public init(skipDirectoryFix: Bool = false, skipEntitlementCheck: Bool = false) {
            self.skipDirectoryFix = skipDirectoryFix
            self.skipEntitlementCheck = skipEntitlementCheck
        }
    }

    /// The device.
    public let device: SimulatedDevice
    /// The host's environment.
    public let environment: LaunchEnvironment

    /// Creates a launch sequence for `device`.
    public init(device: SimulatedDevice, environment: LaunchEnvironment) {
        self.device = device
        self.environment = environment
    }

    /// Runs the sequence: a cold start.
    ///
    /// - Parameter options: Which fixes to skip.
    /// - Returns: The running app; a fallback is a success with a paused status, not an error.
    /// - Throws: ``LaunchError`` when the launch cannot complete at all (a damaged store file, a full disk).
    ///   Without the entitlement and with its check skipped, the process traps instead (step 6).
    public func run(options: Options = Options()) throws(LaunchError) -> LaunchedApp {
        let identifier = environment.containerIdentifier
        // Held from the first read of the app's files to the end of the app's stores: a reinstall waits for it.
        let lease = try leaseAppFiles()
        // A reinstall a crash interrupted is finished first, as iOS finishes installing before a launch.
        do {
            try device.appGroup.completeInterruptedReinstall()
        } catch {
            throw LaunchError(.fileSystem, "cannot finish the app's reinstall", underlying: error)
        }
        var steps: [LaunchStep] = []
        let wanted: Bool
        do {
            wanted = try device.syncPreference()
        } catch {
            throw LaunchError(.damagedFile, underlying: error)
        }
        steps.append(.readSyncPreference(on: wanted))

        if options.skipDirectoryFix {
            steps.append(.skippedDirectoryFix)
        } else {
            let existed = device.appGroup.hasApplicationSupport
            do {
                if !existed { try device.appGroup.createApplicationSupport() }
            } catch {
                throw LaunchError(
                    .fileSystem, "cannot create \(device.appGroup.applicationSupport)", underlying: error)
            }
            steps.append(.applicationSupport(existed: existed))
        }

        var fallback: PauseReason?
        var fallbackDetail: String?
        if wanted {
            if options.skipEntitlementCheck {
                steps.append(.skippedEntitlementCheck)
            } else if let missing = device.entitlements.missingEntitlement(for: identifier) {
                fallback = .missingEntitlement
                fallbackDetail = missing
                steps.append(.checkedEntitlement(identifier, allowed: false))
            } else {
                steps.append(.checkedEntitlement(identifier, allowed: true))
            }
            if fallback == nil {
                let status = device.session.status
                if let reason = PauseReason(accountStatus: status) {
                    fallback = reason
                    fallbackDetail = "the account status is \(status)"
                    steps.append(.checkedAccount(status, fallsBack: true))
                } else {
                    steps.append(.checkedAccount(status, fallsBack: false))
                }
            }
        }

        var cloud = wanted && fallback == nil
        let stores: DeviceStores
        do {
            stores = try openStores(cloud: cloud, lease: lease)
            steps.append(.openedLocalOnlyStore)
            steps.append(.openedUserCreatedStore(cloud: cloud ? identifier : nil))
        } catch  where error.code == .cannotCreateStore && cloud {
            fallback = .storeCreationFailed
            fallbackDetail = error.description
            cloud = false
            steps.append(.cloudStoreFailed(error.description))
            do {
                stores = try openStores(cloud: false, lease: lease)
            } catch {
                throw LaunchError(opening: error)
            }
            steps.append(.openedBothStoresLocally)
        } catch {
            throw LaunchError(opening: error)
        }

        let record = LaunchRecord(
            launchedAt: environment.clock.now(), syncWanted: wanted, userCreatedStore: cloud ? .cloud : .local,
            containerIdentifier: identifier.rawValue, fallbackReason: fallback, fallbackDetail: fallbackDetail,
            skippedDirectoryFix: options.skipDirectoryFix, skippedEntitlementCheck: options.skipEntitlementCheck,
            steps: steps + [cloud ? .startedEngine : .noContainer])
        // Step 6 comes after the record is written: if it traps, the record still says what the launch got to.
        try record.save(appGroup: device.appGroup.path)
        let app = LaunchedApp(device: device, environment: environment, record: record, stores: stores)
        // A launch is the app's first look at the account since its last process: an attempt an earlier process
        // recorded as stopped by the account says nothing of the account now, and must not keep the engine from
        // asking to run (the account may have come back while the app was not running).
        do {
            try app.engine?.accountDidChange()
        } catch {
            throw LaunchError(opening: error)
        }
        return app
    }

    /// Reopens the app as its last launch left it, for a command that acts within that launch.
    ///
    /// - Parameter readOnly: Whether the command only reads: the stores are then opened read-only, so that it
    ///   works on a read-only world and writes nothing.
    /// - Returns: The app, configured as at its last launch.
    /// - Throws: ``LaunchError`` `neverLaunched` when the device has no launch since installation.
    public func resume(readOnly: Bool = false) throws(LaunchError) -> LaunchedApp {
        let lease = try leaseAppFiles()
        let record = try lastLaunch()
        if !readOnly, Self.buildLostEntitlement(since: record, device: device, environment: environment) {
            // The app was upgraded to a build without the entitlement since that launch: an upgrade ends the running
            // process, so the next open is a cold start of the new build (which checks the entitlement and falls
            // back), never the old launch resumed with a container the new build cannot open (a trap).
            return try run()
        }
        if !readOnly, Self.accountChanged(since: record, device: device) {
            // The launch fell back for the account, and the account is not what it was: the app reconfigures, as
            // one observing CKAccountChanged does, instead of waiting for a relaunch. (A command that only reads
            // writes nothing; its status is the reconfigured one all the same: see `LaunchedApp.facts`.)
            return try run()
        }
        do {
            let stores = try openStores(cloud: record.userCreatedStore == .cloud, readOnly: readOnly, lease: lease)
            return LaunchedApp(
                device: device, environment: environment, record: record, stores: stores, isReadOnlyView: readOnly)
        } catch {
            throw LaunchError(opening: error)
        }
    }

    /// The status of the app as its last launch left it, reading only what a status is derived from: the launch
    /// record, the account and the user-created store. The local-only store and the container are not opened and no
    /// engine is made, so that showing the status costs what a settings screen should.
    ///
    /// - Returns: The status ``LaunchedApp/status()`` would give after ``resume(readOnly:)``.
    /// - Throws: ``LaunchError`` `neverLaunched` when the device has no launch since installation, or what opening
    ///   the user-created store throws.
    public func status() throws(LaunchError) -> SyncStatus {
        let lease = try leaseAppFiles()
        let record = try lastLaunch()
        do {
            let store = try RecordStore<UserCreated>.open(
                userCreatedConfiguration(cloud: record.userCreatedStore == .cloud), partition: environment.partition,
                deviceID: device.name, clock: environment.clock, names: environment.names,
                durability: environment.durability, crashSwitch: environment.crashSwitch,
                verifyIntegrity: environment.verifyIntegrity, verificationMemo: environment.verificationMemo,
                readOnly: true, lease: lease)
            return SyncStatus.derive(
                from: try LaunchedApp.facts(
                    device: device, record: record, userCreated: store, now: environment.clock.now(),
                    asAtNextAction: environment, delegateEngineFacts: environment.delegateEngineFacts))
        } catch {
            throw LaunchError(opening: error)
        }
    }

    /// Whether the launch `record` opened the cloud store after checking the entitlement, while the build installed
    /// now lacks it: the app was upgraded since, and that launch is over.
    static func buildLostEntitlement(
        since record: LaunchRecord, device: SimulatedDevice, environment: LaunchEnvironment
    ) -> Bool {
        record.userCreatedStore == .cloud && !record.skippedEntitlementCheck
            && device.entitlements.missingEntitlement(for: environment.containerIdentifier) != nil
    }

    /// Whether the launch `record` fell back for the device's account, and the account's status has changed since.
    static func accountChanged(since record: LaunchRecord, device: SimulatedDevice) -> Bool {
        guard let reason = record.fallbackReason, reason.isAccountReason else { return false }
        return PauseReason(accountStatus: device.session.status) != reason
    }

    /// The record of the last launch since installation.
    ///
    /// - Throws: ``LaunchError`` `neverLaunched` when there is none.
    private func lastLaunch() throws(LaunchError) -> LaunchRecord {
        guard let record = try LaunchRecord.load(appGroup: device.appGroup.path) else {
            throw LaunchError(.neverLaunched, "device \(device.name) has never been launched")
        }
        return record
    }

    private func userCreatedConfiguration(cloud: Bool) -> StoreConfiguration {
        StoreConfiguration(
            name: StoreConfiguration.userCreatedName, directory: device.appGroup.applicationSupport,
            cloudKitDatabase: cloud ? .private(environment.containerIdentifier) : .none)
    }

    /// The lease every instance of the app holds on its App Group folder (see `AppGroupLease`).
    ///
    /// - Throws: ``LaunchError`` `fileSystem` when the folder cannot be opened or locked.
    private func leaseAppFiles() throws(LaunchError) -> AppGroupLease {
        do {
            return try device.leaseAppFiles()
        } catch {
            throw LaunchError(.fileSystem, underlying: error)
        }
    }

    private func openStores(
        cloud: Bool, readOnly: Bool = false, lease: AppGroupLease
    ) throws(StoreError) -> DeviceStores {
        let localOnly = StoreConfiguration(
            name: StoreConfiguration.localOnlyName, directory: device.appGroup.applicationSupport,
            cloudKitDatabase: .none)
        return try DeviceStores.open(
            localOnly: localOnly, userCreated: userCreatedConfiguration(cloud: cloud),
            partition: environment.partition, deviceID: device.name, clock: environment.clock,
            names: environment.names, durability: environment.durability, crashSwitch: environment.crashSwitch,
            verifyIntegrity: environment.verifyIntegrity, verificationMemo: environment.verificationMemo,
            readOnly: readOnly, lease: lease)
    }
}

extension LaunchError {
    /// The launch error for a store that could not be opened: `damagedFile` for a damaged file, else `storage`.
    init(opening error: StoreError) {
        self.init(error.code == .damagedFile ? .damagedFile : .storage, underlying: error)
    }
}
