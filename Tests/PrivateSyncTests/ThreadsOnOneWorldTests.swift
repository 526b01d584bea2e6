import Foundation
import PrivateSyncSQLite
import PrivateSyncTesting
import Testing

/// Issue 22, item 4: the many-processes guarantees inside one process. A team's Swift Testing suite runs its tests
/// in parallel, so one process may hold several `World` handles, container handles and engines on the same files at
/// once, each with its own SQLite connections; SQLite's locks are per process, so these threads never block one
/// another the way two processes do, and only SQLite's own sharing of a file between connections keeps them apart.
@Suite("Threads: several handles on one world's files, in one process")
struct ThreadsOnOneWorldTests {
    /// A file-backed world with `devices` signed in to alice, sync on, launched once; durable as the CLI's.
    static func world(_ devices: [String]) throws -> World {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-threads-\(UUID())").path
        let world = try World.create(at: home)
        for device in devices {
            _ = try world.addDevice(device, account: try AccountID("alice"), syncPreference: true)
            _ = try world.launch(device)
        }
        return world
    }

    /// One task's work: its own handle on the world, its own launch of `device`, `rounds` check-ins, each fifth
    /// followed by a sync; what it acknowledged.
    static func client(home: String, device: String, client: Int, rounds: Int) async throws -> [String: Int64] {
        let world = try World.open(at: home)
        let app = try world.launch(device)
        var acknowledged: [String: Int64] = [:]
        for round in 0..<rounds {
            let mood = Int64(client * 1000 + round)
            let record = try app.add("CheckIn", fields: ["mood": .int64(mood), "date": .date(Date())])
            acknowledged[record.name] = mood
            if round % 5 == 4 { _ = await app.sync(force: true) }
        }
        return acknowledged
    }

    @Test(
        "four tasks with a handle each, two per device, adding and syncing at once, and a reader: every acknowledged check-in is on both devices and in the container"
    )
    func tasksOnOneWorld() async throws {
        let devices = ["phone", "tablet"]
        let world = try Self.world(devices)
        defer { try? FileManager.default.removeItem(atPath: world.home) }
        let home = world.home
        let acknowledged = try await withThrowingTaskGroup(of: [String: Int64].self) { group in
            for client in 0..<4 {
                group.addTask {
                    try await Self.client(home: home, device: devices[client % 2], client: client, rounds: 20)
                }
            }
            // A reader beside them: a handle of its own reading statuses and records of both devices.
            group.addTask {
                let reader = try World.open(at: home)
                for round in 0..<40 {
                    let app = try reader.resume(devices[round % 2], readOnly: true)
                    _ = try app.status()
                    _ = try app.stores.userCreated.records()
                }
                return [:]
            }
            var all: [String: Int64] = [:]
            for try await part in group { all.merge(part) { first, _ in first } }
            return all
        }
        #expect(acknowledged.count == 80)
        // Everyone syncs in turn until nothing moves, from a fresh handle.
        let apps = try devices.map { try World.open(at: home).launch($0) }
        for _ in 0..<3 { for app in apps { _ = await app.sync(force: true) } }
        let alice = try AccountID("alice")
        let inContainer = Dictionary(
            uniqueKeysWithValues: try world.containerRecords(account: alice).map {
                ($0.recordID.recordName, $0.fields["mood"])
            })
        for app in apps {
            let held = Dictionary(
                uniqueKeysWithValues: try app.stores.userCreated.records().map { ($0.name, $0.fields["mood"]) })
            let missing = acknowledged.filter { held[$0.key] != .int64($0.value) }
            #expect(missing.isEmpty, "\(app.device.name) misses \(missing.count) acknowledged check-in(s)")
            #expect(try app.status().state == .on(.upToDate))
        }
        let absent = acknowledged.filter { inContainer[$0.key] != .int64($0.value) }
        #expect(absent.isEmpty, "the container misses \(absent.count) acknowledged check-in(s)")
        let files =
            FileManager.default.enumerator(atPath: home)?.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".store") || $0.hasSuffix(".sqlite") } ?? []
        #expect(files.count >= 5, "both devices' stores and the container: \(files)")
        for file in files {
            let connection = try Connection(path: home + "/" + file, mode: .readOnly)
            #expect(try connection.integrityCheckProblems() == [], "\(file) is corrupt")
        }
    }
}
