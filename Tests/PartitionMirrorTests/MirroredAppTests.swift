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
