import PartitionMirror
import PrivateSyncTesting
import Testing

/// `MirroredApp`, the launched app of a device whose build is CKSyncEngine's delegate, in one process: what the
/// CLI's commands run, one per process.
@Suite("A launched app syncing through CKSyncEngine")
struct MirroredAppTests {
    /// A world with device A on alice, a build of CKSyncEngine's delegate, sync on, launched, holding one note.
    static func launched() throws -> (world: TestWorld, app: LaunchedApp) {
        let world = try TestWorld()
        try world.addDevice("A", account: "alice", sync: true, syncEngine: .cksyncengine)
        let app = try world.launch("A")
        try app.add("Note", fields: ["title": .string("t"), "body": .string("b"), "date": .date(world.clock.now())])
        return (world, app)
    }

    @Test("a cycle sends nothing once the user turned sync off, though the app opened with it on")
    func switchTurnedOffMidwaySendsNothing() async throws {
        let (world, app) = try Self.launched()
        let mirrored = try #require(try MirroredApp.open(app))
        // Another process turns sync off while this one's mirror is open (`sync off` beside `sync now`).
        try app.device.setSyncPreference(false)
        let off = await mirrored.sync()
        #expect(off.sentSaves == 0)
        #expect(try world.world.containerRecords(account: AccountID("alice")).isEmpty)
        try app.device.setSyncPreference(true)
        let on = await mirrored.sync()
        #expect(on.sentSaves == 1, "the same cycle sends once sync is on again")
    }

    @Test("a build of the app's own engine has no mirror, and its app an engine; a delegate's build the reverse")
    func eachBuildRunsOneEngine() throws {
        let (world, app) = try Self.launched()
        #expect(app.engine == nil)
        #expect(try MirroredApp.open(app) != nil)
        try world.addDevice("B", account: "alice", sync: true)
        let own = try world.launch("B")
        #expect(own.engine != nil)
        #expect(try MirroredApp.open(own) == nil)
    }
}

extension MirroredAppTests {
    @Test("a mirrored app let go after its cycle keeps no store of the device open: the app can be reinstalled")
    func lettingGoClosesTheStores() async throws {
        let world = try TestWorld()
        try world.addDevice("A", account: "alice", sync: true, syncEngine: .cksyncengine)
        try await Self.syncOnce(world)
        // The tally in front of the mirror held the mirror, and the mirror its tally: both outlived the app, with
        // its stores, and a reinstall in the same process found the app still open.
        try world.device("A").reinstall(syncPreference: true)
    }

    /// Launches device A, adds a note and syncs it through a mirror, all of which it lets go when it returns.
    static func syncOnce(_ world: TestWorld) async throws {
        let app = try world.launch("A")
        try app.add("Note", fields: ["title": .string("t"), "body": .string("b"), "date": .date(world.clock.now())])
        let mirrored = try #require(try MirroredApp.open(app))
        #expect(await mirrored.sync().sentSaves == 1)
    }
}
