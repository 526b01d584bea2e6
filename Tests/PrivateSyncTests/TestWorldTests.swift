import Foundation
import PrivateSyncTesting
import Synchronization
import Testing

/// A resolver that always keeps the server's version: how a team plugs its own conflict policy into a launch.
private struct ServerWins: ConflictResolver {
    func resolve(local: StoredRecord, server: StoredRecord) -> StoredRecord { server }
}

@Suite("TestWorld as a team meets it: folders, clocks, observers, launch options")
struct TestWorldTests {
    private func checkIn(_ world: TestWorld, mood: Int64) -> [String: FieldValue] {
        ["mood": .int64(mood), "date": .date(world.clock.now())]
    }

    /// A new empty folder under /tmp, for worlds a test wants to find again.
    private func parentFolder() throws -> String {
        let path = "/tmp/privatesync-testworld-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("a world's folder is pid-marked, in the folder given, and removed when the world is released")
    func folderIsRemovedOnRelease() throws {
        let parent = try parentFolder()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        var world: TestWorld? = try TestWorld(temporaryDirectory: parent)
        let directory = try #require(world?.directory)
        #expect(directory.hasPrefix("\(parent)/privatesync-world-\(getpid())-"))
        #expect(FileManager.default.fileExists(atPath: directory))
        world = nil
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test("TestWorld honours TMPDIR")
    func honoursTMPDIR() async {
        // In a child process, so that setting TMPDIR touches no other test.
        await #expect(processExitsWith: .success) {
            let parent = "/tmp/privatesync-tmpdir-\(getpid())"
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            setenv("TMPDIR", parent + "/", 1)
            let world = try? TestWorld()
            let inside = world?.directory.hasPrefix(parent + "/privatesync-world-") == true
            try? FileManager.default.removeItem(atPath: parent)
            exit(inside ? 0 : 1)
        }
    }

    @Test("a folder left by an exit test's killed child is removed by the next TestWorld in the parent")
    func leftoversOfAKilledChildAreRemoved() async throws {
        let parent = try parentFolder()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        await #expect(processExitsWith: .signal(SIGKILL)) { [parent = parent as String] in
            let world = try? TestWorld(temporaryDirectory: parent)
            withExtendedLifetime(world) { _ = kill(getpid(), SIGKILL) }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: parent)
        #expect(left.count == 1)
        #expect(left.allSatisfy { $0.hasPrefix("privatesync-world-") })
        let next = try TestWorld(temporaryDirectory: parent)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: parent) == [
                URL(fileURLWithPath: next.directory).lastPathComponent
            ])
    }

    @Test("removeLeftovers removes dead processes' world folders only, leaving running ones' and other names")
    func removeLeftoversIsSelective() throws {
        let parent = try parentFolder()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let dead = "privatesync-world-99999999-abcdef"  // above Linux's pid_max: no such process
        let running = "privatesync-world-\(getpid())-abcdef"
        for name in [dead, running, "privatesync-world-notapid-abcdef", "other"] {
            try FileManager.default.createDirectory(atPath: "\(parent)/\(name)", withIntermediateDirectories: true)
        }
        #expect(TestWorld.removeLeftovers(in: parent) == ["\(parent)/\(dead)"])
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: parent)) == [
                running, "privatesync-world-notapid-abcdef", "other",
            ])
        #expect(TestWorld.owner(ofFolderNamed: running) == getpid())
        #expect(TestWorld.owner(ofFolderNamed: "other") == nil)
    }

    @Test("an app keeps its world, and the world's folder, alive")
    func appKeepsItsWorldAlive() async throws {
        var directory = ""
        let phone = try {
            let world = try TestWorld()
            directory = world.directory
            try world.addDevice("phone", account: "alice", sync: true)
            return try world.launch("phone")
        }()
        try phone.add("CheckIn", fields: ["mood": .int64(3), "date": .date(Date(timeIntervalSinceReferenceDate: 0))])
        #expect(await phone.sync()?.sentSaves == 1)
        #expect(FileManager.default.fileExists(atPath: directory))
    }

    @Test("each device reads its own clock: an offset skews it, a jump moves it back; the containers keep the world's")
    func perDeviceClocks() async throws {
        let world = try makeWorld("phone", "tablet")
        world.clock(of: "tablet").setOffset(-300)
        let phone = try world.launch("phone")
        let tablet = try world.launch("tablet")
        let start = world.clock.now()
        #expect(try tablet.add("CheckIn", name: "t", fields: checkIn(world, mood: 1)).createdAt == start - 300)
        world.clock(of: "phone").jump(by: -3600)
        #expect(try phone.add("CheckIn", name: "p", fields: checkIn(world, mood: 1)).createdAt == start - 3600)
        #expect(world.clock(of: "phone").offset == -3600)

        // The phone edits first in world time, the tablet ten seconds later but five minutes behind: by the devices'
        // clocks the phone's edit is the later one, and it wins everywhere.
        world.clock(of: "phone").setOffset(0)
        await tablet.sync()
        await phone.sync()
        try phone.edit("t", setting: ["mood": .int64(2)])
        world.clock.advance(by: 10)
        try tablet.edit("t", setting: ["mood": .int64(3)])
        await tablet.sync()
        await phone.sync()
        await tablet.sync()
        #expect(try phone.find("t")?.record.fields["mood"] == .int64(2))
        #expect(try tablet.find("t")?.record.fields["mood"] == .int64(2))
    }

    @Test("an edit after a backward jump still supersedes the value it replaced")
    func backwardJumpStillSupersedes() async throws {
        let (world, phone) = try launchedPhone()
        try phone.add("CheckIn", name: "c", fields: checkIn(world, mood: 1))
        world.clock(of: "phone").jump(by: -86_400)
        let edited = try phone.edit("c", setting: ["mood": .int64(2)])
        #expect(edited.fields["mood"] == .int64(2))
        await phone.sync()
        #expect(try world.containerRecords(account: "alice").first?.fields["mood"] == .int64(2))
    }

    @Test("observer events say which device they came from; the plain observer still gets every event")
    func observerNamesTheDevice() async throws {
        let seen = Mutex<[(String, SyncEvent)]>([])
        let plain = Mutex<Int>(0)
        let world = try TestWorld(
            observer: { _ in plain.withLock { $0 += 1 } },
            deviceObserver: { device, event in seen.withLock { $0.append((device, event)) } })
        try world.addDevice("phone", account: "alice", sync: true)
        try world.addDevice("tablet", account: "alice", sync: true)
        let phone = try world.launch("phone")
        let tablet = try world.launch("tablet")
        try phone.add("CheckIn", fields: checkIn(world, mood: 1))
        let phoneReport = try #require(await phone.sync())
        let tabletReport = try #require(await tablet.sync())
        let events = seen.withLock { $0 }
        #expect(events.filter { $0.0 == "phone" }.map(\.1) == phoneReport.events)
        #expect(events.filter { $0.0 == "tablet" }.map(\.1) == tabletReport.events)
        #expect(plain.withLock { $0 } == events.count)
    }

    @Test("launch takes a conflict resolver and a retry policy")
    func launchTakesResolverAndRetryPolicy() async throws {
        let world = try makeWorld("phone", "tablet")
        let policy = RetryPolicy(initialDelay: 30, multiplier: 2, maximumDelay: 60)
        let phone = try world.launch("phone", resolver: ServerWins(), retryPolicy: policy)
        let tablet = try world.launch("tablet")
        try phone.add("CheckIn", name: "c", fields: checkIn(world, mood: 1))
        await phone.sync()
        await tablet.sync()
        try tablet.edit("c", setting: ["mood": .int64(2)])
        await tablet.sync()
        world.clock.advance(by: 1)
        try phone.edit("c", setting: ["mood": .int64(5)])  // later, but the server's version wins on the phone
        await phone.sync()
        #expect(try phone.find("c")?.record.fields["mood"] == .int64(2))

        try world.inject(.networkUnavailable, device: "phone")
        try phone.edit("c", setting: ["mood": .int64(6)])
        await phone.sync()
        #expect(
            try phone.status().state
                == .on(.waiting(reason: .offline, nextAttempt: world.clock.now().addingTimeInterval(30))))
    }

    @Test("a record-name source names the records add makes, the same in every run")
    func recordNameSourceNamesRecords() throws {
        func names() throws -> [String] {
            let world = try TestWorld(names: SeededRecordNames(seed: 7))
            try world.addDevice("phone", account: "alice", sync: true)
            let phone = try world.launch("phone")
            return try (0..<3).map { _ in try phone.add("CheckIn", fields: checkIn(world, mood: 1)).name }
        }
        let first = try names()
        #expect(first == (try names()))
        #expect(Set(first).count == 3)
    }

    @Test(
        "LaunchedApp's shapes follow the documented rules: absence is nil, a wrong name throws, a reaction returns the app"
    )
    func launchedAppShapesFollowTheRules() async throws {
        let (world, phone) = try launchedPhone()
        #expect(try phone.find("nothing") == nil)
        let added = try phone.add("CheckIn", name: "c", fields: checkIn(world, mood: 1))
        let found = try #require(try phone.find("c"))
        #expect(found.record == added)
        #expect(found.partition == .userCreated)
        #expect(throws: StoreError.self) { try phone.edit("nothing", setting: ["mood": .int64(2)]) }
        #expect(throws: StoreError.self) { try phone.delete("nothing") }
        #expect(throws: StoreError.self) { try phone.startFreshForSignedInAccount() }  // nothing to start afresh from
        let cleared = try phone.edit("c", setting: ["note": .string("x")]).fields["note"]
        #expect(cleared == .string("x"))
        #expect(try phone.edit("c", setting: ["note": nil as FieldValue?]).fields["note"] == nil)
        #expect(await phone.sync() != nil)
        let off = try phone.setSyncEnabled(false)
        #expect(await off.sync() == nil)
        #expect(await off.fetchChanges() == nil)
        #expect(await off.sendChanges() == nil)
        #expect(try off.status().state == .off)
    }
}
