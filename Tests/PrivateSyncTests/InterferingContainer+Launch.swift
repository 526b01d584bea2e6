import PrivateSyncTesting
import Synchronization
import Testing

extension InterferingContainer {
    /// The engine's zone.
    static let engineZone = ZoneID(uncheckedName: SyncEngine.defaultZoneName)

    /// Launches a device whose container a test can interfere with (or hook).
    static func launch(
        _ world: TestWorld, _ name: String, databasePageSize: Int? = nil, failingDatabaseCall: Int? = nil,
        itemLimit: Int? = nil, zonePageSize: Int? = nil
    ) throws -> (LaunchedApp, InterferingContainer) {
        let box = Mutex<InterferingContainer?>(nil)
        let app = try world.launch(name) { base in
            let container = InterferingContainer(
                base: base, databasePageSize: databasePageSize, failingDatabaseCall: failingDatabaseCall,
                itemLimit: itemLimit, zonePageSize: zonePageSize)
            box.withLock { $0 = container }
            return container
        }
        return (app, try #require(box.withLock { $0 }))
    }

    /// A fresh world with the phone on alice, sync on, launched on a container a test can interfere with: the world,
    /// the phone and its container.
    static func launchPhone(
        databasePageSize: Int? = nil, itemLimit: Int? = nil
    ) throws -> (TestWorld, LaunchedApp, InterferingContainer) {
        let world = try makeWorld("phone")
        let (phone, container) = try launch(world, "phone", databasePageSize: databasePageSize, itemLimit: itemLimit)
        return (world, phone, container)
    }
}
