import Foundation
import PrivateSyncFileSystem
import PrivateSyncTesting
import Synchronization
import Testing

/// Every instance of the app holds a lease on its App Group folder for as long as its stores are open, and a
/// reinstall empties the folder only under the exclusive lock: no store is deleted under an open connection, whose
/// closing would then delete the next store's `-wal` and `-shm` by name.
@Suite("App Group lease")
struct AppGroupLeaseTests {
    /// Whether an exclusive lock on `folder` is refused now: `flock` locks belong to open file descriptions, so a
    /// lock taken here conflicts with a lease of this process exactly as another process's would.
    static func isLeased(_ folder: String) -> Bool {
        (try? FileLock.exclusive(folder, wait: false)) == nil
    }

    @Test("a launched app and a resumed one each hold the lease while their stores are open")
    func everyInstanceHoldsTheLease() throws {
        let world = try TestWorld(backend: .file)
        let device = try world.addDevice("phone", account: "alice", sync: true)
        let folder = device.appGroup.path
        var app: LaunchedApp? = try world.launch("phone")
        #expect(Self.isLeased(folder))
        var stores: DeviceStores? = app?.stores
        app = nil
        #expect(Self.isLeased(folder), "the stores outlive the app, and keep its lease")
        stores = nil
        _ = stores
        #expect(!Self.isLeased(folder))
        var resumed: LaunchedApp? = try world.world.resume("phone", readOnly: true)
        #expect(Self.isLeased(folder))
        resumed = nil
        _ = resumed
        #expect(!Self.isLeased(folder))
    }

    @Test("a reinstall from the process that still holds the app is refused, not a wait for itself")
    func reinstallWhileOpenHereIsRefused() throws {
        let world = try TestWorld(backend: .file)
        let device = try world.addDevice("phone", account: "alice", sync: true)
        var app: LaunchedApp? = try world.launch("phone")
        try app?.checkIn(3)
        #expect(throws: DeviceError.self) { try device.reinstall(syncPreference: true) }
        #expect(device.appGroup.hasApplicationSupport, "nothing was removed")
        app = nil
        _ = app
        try device.reinstall(syncPreference: true)
        #expect(!device.appGroup.hasApplicationSupport)
        #expect(FileSystem.isDirectory(device.appGroup.path), "the folder the leases lock stays")
    }

    @Test("threads writing through separate instances of one device's app in one process lose nothing")
    func threadsThroughSeparateInstances() throws {
        let world = try TestWorld(backend: .file)
        try world.addDevice("phone", account: "alice", sync: true)
        let apps = try (0..<2).map { _ in try world.launch("phone") }
        let written = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        let done = DispatchGroup()
        for thread in 0..<4 {
            done.enter()
            Thread {
                for index in 0..<25 {
                    do {
                        let record = try apps[thread % 2].checkIn(Int64(index))
                        written.withLock { $0.append(record.name) }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                done.leave()
            }.start()
        }
        done.wait()
        #expect(failures.withLock { $0 } == [])
        let held = Set(try apps[0].stores.userCreated.records().map(\.name))
        #expect(written.withLock { $0.count } == 100)
        #expect(written.withLock { $0.filter { !held.contains($0) } } == [])
    }

    /// The states a reinstall killed at each of its steps can leave: the old `Library` moved aside (whole), with or
    /// without the fresh one laid out yet.
    enum InterruptedReinstall: String, CaseIterable, CustomTestStringConvertible {
        case movedAsideOnly = "the old Library moved aside, no fresh one yet"
        case freshLaidOutPartly = "the old Library moved aside, the fresh one without Preferences"
        case freshLaidOut = "a fresh Library, the old one not yet removed"

        var testDescription: String { rawValue }
    }

    @Test(
        "a reinstall killed part-way is finished by the next launch: a genuine first launch",
        arguments: InterruptedReinstall.allCases)
    func interruptedReinstallIsFinishedByTheNextLaunch(_ state: InterruptedReinstall) throws {
        let world = try TestWorld(backend: .file)
        let device = try world.addDevice("phone", account: "alice", sync: true)
        try world.launch("phone").checkIn(3)
        let appGroup = device.appGroup
        // As the reinstall leaves it when killed after the step: moved whole, so no store is half gone.
        try FileSystem.move(appGroup.library, to: appGroup.path + "/.reinstalling-99-1")
        switch state {
        case .movedAsideOnly: break
        case .freshLaidOutPartly:
            try FileSystem.createDirectory(appGroup.caches)
        case .freshLaidOut:
            for folder in [appGroup.library, appGroup.caches, appGroup.preferences] {
                try FileSystem.createDirectory(folder)
            }
        }
        let app = try world.launch("phone")
        #expect(try FileSystem.contents(ofDirectory: appGroup.path) == ["Library"], "what was moved aside is gone")
        #expect(FileSystem.isDirectory(appGroup.caches) && FileSystem.isDirectory(appGroup.preferences))
        #expect(try app.stores.userCreated.records().isEmpty, "the store is a fresh one")
        #expect(try app.status().state == .off, "the preference a killed reinstall did not restore reads never set")
        try app.checkIn(4)
        #expect(try app.stores.userCreated.records().count == 1)
    }
}
