import PrivateSyncTesting
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Sync engine: crashes")
struct SyncEngineCrashTests {
    @Test("a crash between a local write and its send loses nothing: the change is sent after relaunch")
    func crashBetweenWriteAndSend() async throws {
        let world = try makeWorld("phone")
        let written: String
        do {
            let phone = try world.launch("phone", crashSwitch: CrashSwitch())
            written = try phone.checkIn(4).name
            // The process dies here: the app object is dropped without any shutdown.
        }
        let relaunched = try world.launch("phone")
        #expect(try relaunched.stores.userCreated.pendingChanges().map(\.recordName) == [written])
        await relaunched.sync()
        #expect(try world.containerRecords(account: "alice").map(\.recordID.recordName) == [written])
    }

    @Test(
        "a crash at any moment of a sync loses nothing and duplicates nothing",
        arguments: CrashingContainer.Moment.allCases, [0, 1, 2])
    func crashDuringSync(moment: CrashingContainer.Moment, after: Int) async throws {
        let world = try makeWorld("phone", "tablet")
        let tablet = try world.launch("tablet")
        for mood in 0..<5 { try tablet.checkIn(Int64(mood)) }
        await tablet.sync()
        let crash = CrashSwitch()
        let phone = try world.launch("phone", crashSwitch: crash) { base in
            CrashingContainer(base: base, crashSwitch: crash, at: moment, after: after)
        }
        var mine: [String] = []
        for mood in 0..<3 { mine.append(try phone.checkIn(Int64(mood)).name) }
        try phone.edit(mine[0], setting: ["note": .string("edited before the crash")])
        await phone.sync()
        await phone.sync(force: true)
        // Relaunch after the crash, with a live process.
        let relaunched = try world.launch("phone")
        await syncUntilQuiet([relaunched, tablet])
        let cloud = try containerContents(world, "alice")
        #expect(cloud.count == 8, "five from the tablet and three from the phone, once each")
        #expect(try contents(relaunched) == cloud)
        #expect(try contents(tablet) == cloud)
        #expect(cloud[mine[0]]?["note"] == .string("edited before the crash"))
        #expect(try relaunched.stores.userCreated.pendingChangeCount() == 0)
    }
}
