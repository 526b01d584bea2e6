import PrivateSyncTesting
import Synchronization
import Testing

extension InterferingContainer {
    /// The engine's zone.
    static let engineZone = ZoneID(uncheckedName: SyncEngine.defaultZoneName)

    /// Launches a device whose container a test can interfere with.
    static func launch(
        _ world: TestWorld, _ name: String, databasePageSize: Int? = nil, failingDatabaseCall: Int? = nil
    ) throws -> (LaunchedApp, InterferingContainer) {
        let box = Mutex<InterferingContainer?>(nil)
        let app = try world.launch(name) { base in
            let container = InterferingContainer(
                base: base, databasePageSize: databasePageSize, failingDatabaseCall: failingDatabaseCall)
            box.withLock { $0 = container }
            return container
        }
        return (app, try #require(box.withLock { $0 }))
    }
}
