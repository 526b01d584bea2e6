#if canImport(CloudKit)
    public import CloudKit
    import Foundation
    import Synchronization

    /// Drives a ``PSSyncEngineDelegate`` from Apple's real `CKSyncEngine`, so that one delegate serves the device
    /// and the tests.
    ///
    /// On a device, make the bridge where you made your `CKSyncEngine`, and keep it:
    ///
    /// ```swift
    /// let bridge = CloudKitSyncEngineBridge(
    ///     database: CKContainer(identifier: "iCloud.com.example.app").privateCloudDatabase,
    ///     stateSerialization: savedState, delegate: syncedDatabase)
    /// try await bridge.engine.sendChanges()
    /// ```
    ///
    /// The bridge is the real engine's delegate: it turns each of CloudKit's events, contexts, records and errors
    /// into PrivateSync's (the same names and fields), awaits the delegate with them, and turns the delegate's
    /// batches back into CloudKit's. Its ``engine`` is a ``PSSyncEngine`` whose fetches, sends and state go to the
    /// real engine: hand it to code that takes a `PSSyncEngine`. Events arrive one at a time, as CloudKit delivers
    /// them. A state serialization from the fake engine is not given to CloudKit (each refuses the other's: the real
    /// engine then starts from nothing, and ``misuses`` says so). CloudKit values with no PrivateSync counterpart
    /// (`CKAsset`) are left out of the records the delegate sees.
    ///
    /// This file cannot be built on Linux; `make check-cloudkit-bridge` type-checks it against a stand-in of the
    /// CloudKit signatures it uses (`Scripts/CloudKitStandIn`, each taken from Apple's published interface).
    public final class CloudKitSyncEngineBridge: CKSyncEngineDelegate, Sendable {
        private struct Engines: Sendable {
            let cloudKit: CKSyncEngine
            let facade: PSSyncEngine
        }

        private let engines = Mutex<Engines?>(nil)
        private let misuseReports = Mutex<[PSSyncEngineMisuse]>([])

        /// Creates the real engine and its PrivateSync face.
        ///
        /// - Parameters:
        ///   - database: The private database, as `CKContainer(identifier:).privateCloudDatabase`.
        ///   - stateSerialization: The state the delegate last persisted (from a `stateUpdate` of this bridge), or
        ///     `nil` at the first launch.
        ///   - delegate: The delegate (held weakly, as CloudKit does).
        ///   - automaticallySync: Whether the real engine syncs by itself; `true` by default.
        ///   - subscriptionID: The subscription of an app that had its own before it used the engine.
        public init(
            database: CKDatabase, stateSerialization: PSSyncEngine.State.Serialization?,
            delegate: any PSSyncEngineDelegate, automaticallySync: Bool = true,
            subscriptionID: CKSubscription.ID? = nil
        ) {
            var cloudKitState: CKSyncEngine.State.Serialization?
            if let stateSerialization {
                if let json = stateSerialization.cloudKitJSON {
                    cloudKitState = try? JSONDecoder().decode(CKSyncEngine.State.Serialization.self, from: json)
                }
                if cloudKitState == nil {
                    misuseReports.withLock {
                        $0.append(
                            PSSyncEngineMisuse(
                                .foreignStateSerialization,
                                "the state serialization is not the real CKSyncEngine's (the fake engine's, or "
                                    + "unreadable); CloudKit's engine starts from nothing"))
                    }
                }
            }
            var configuration = CKSyncEngine.Configuration(
                database: database, stateSerialization: cloudKitState, delegate: self)
            configuration.automaticallySync = automaticallySync
            configuration.subscriptionID = subscriptionID
            let cloudKit = CKSyncEngine(configuration)
            let facade = PSSyncEngine(
                forwardingTo: CloudKitEngineForwarding(engine: cloudKit),
                state: CloudKitStateForwarding(state: cloudKit.state),
                database: PSDatabase(forwardingTo: CloudKitDatabaseForwarding(database: database)),
                delegate: delegate, automaticallySync: automaticallySync, subscriptionID: subscriptionID)
            engines.withLock { $0 = Engines(cloudKit: cloudKit, facade: facade) }
        }

        /// The engine the delegate is handed: its fetches, sends and state are the real engine's.
        public var engine: PSSyncEngine { current.facade }

        /// The real engine.
        public var cloudKitEngine: CKSyncEngine { current.cloudKit }

        /// What the bridge could not do as asked (a state of the fake engine), and the engine's own misuse reports.
        public var misuses: [PSSyncEngineMisuse] { misuseReports.withLock { $0 } + engine.misuses }

        private var current: Engines {
            guard let engines = engines.withLock({ $0 }) else {
                preconditionFailure("CloudKitSyncEngineBridge: used before its initializer returned")
            }
            return engines
        }

        // MARK: CKSyncEngineDelegate

        /// Hands CloudKit's event to the delegate, as PrivateSync's.
        ///
        /// - Parameters:
        ///   - event: CloudKit's event.
        ///   - syncEngine: The real engine.
        public func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
            guard let converted = PSSyncEngine.Event(cloudKit: event) else { return }
            let facade = engine
            _ = await facade.callDelegate { delegate in
                await delegate.handleEvent(converted, syncEngine: facade)
                return true
            }
        }

        /// Asks the delegate for its next batch, and hands it to CloudKit.
        ///
        /// - Parameters:
        ///   - context: CloudKit's send context.
        ///   - syncEngine: The real engine.
        /// - Returns: The batch, or `nil` when the delegate has nothing more.
        public func nextRecordZoneChangeBatch(
            _ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine
        ) async -> CKSyncEngine.RecordZoneChangeBatch? {
            let facade = engine
            let converted = PSSyncEngine.SendChangesContext(cloudKit: context)
            let batch = await facade.callDelegate { delegate in
                await delegate.nextRecordZoneChangeBatch(converted, syncEngine: facade)
            }
            return batch??.cloudKitBatch
        }

        /// Asks the delegate for the options of the rest of the fetch.
        ///
        /// - Parameters:
        ///   - context: CloudKit's fetch context.
        ///   - syncEngine: The real engine.
        /// - Returns: The options, as CloudKit's.
        public func nextFetchChangesOptions(
            _ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine
        ) async -> CKSyncEngine.FetchChangesOptions {
            let facade = engine
            let converted = PSSyncEngine.FetchChangesContext(cloudKit: context)
            let options = await facade.callDelegate { delegate in
                await delegate.nextFetchChangesOptions(converted, syncEngine: facade)
            }
            return options.map { $0.cloudKitOptions(keeping: context.options.operationGroup) } ?? context.options
        }
    }
#endif
