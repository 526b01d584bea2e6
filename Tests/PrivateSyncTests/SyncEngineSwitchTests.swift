import PrivateSyncTesting
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Sync engine: the switch")
struct SyncEngineSwitchTests {
    @Test("turning sync on uploads what was written while it was off, and fetches what other devices wrote")
    func turningOnMergesBothWays() async throws {
        let world = try makeWorld("phone", sync: false)
        try world.addDevice("tablet", account: "alice", sync: true)
        let phoneOff = try world.launch("phone")
        let tablet = try world.launch("tablet")
        for mood in 1...4 { try phoneOff.checkIn(Int64(mood)) }
        try tablet.checkIn(5)
        await tablet.sync()
        let phone = try phoneOff.setSyncEnabled(true)
        await syncUntilQuiet([phone, tablet])
        #expect(try containerContents(world, "alice").count == 5)
        #expect(try contents(phone) == contents(tablet))
    }

    @Test("turning sync off stops every container call and deletes nothing on either side")
    func turningOffStopsCalls() async throws {
        let (world, phone, _) = try await syncedPhone(checkIns: 3)
        let off = try phone.setSyncEnabled(false)
        #expect(off.container == nil && off.engine == nil)
        try off.checkIn(4)
        #expect(await off.sync() == nil)
        #expect(try off.status().state == .off)
        #expect(try world.containerRecords(account: "alice").count == 3, "the user's iCloud data is theirs")
        #expect(try off.stores.userCreated.count() == 4)
    }

    @Test("off, on, off, on: merges both ways without duplicates")
    func toggleRepeatedly() async throws {
        let world = try makeWorld("phone", "tablet")
        var phone = try world.launch("phone")
        let tablet = try world.launch("tablet")
        try phone.checkIn(1)
        await syncUntilQuiet([phone, tablet])
        for round in 0..<3 {
            phone = try phone.setSyncEnabled(false)
            try phone.checkIn(Int64(round))
            try tablet.checkIn(Int64(round))
            await tablet.sync()
            phone = try phone.setSyncEnabled(true)
            await syncUntilQuiet([phone, tablet])
        }
        let cloud = try containerContents(world, "alice")
        #expect(cloud.count == 7)
        #expect(try contents(phone) == cloud)
        #expect(try contents(tablet) == cloud)
    }

    @Test("an off device's container is not even opened", arguments: ContainerBackend.allCases)
    func offOpensNothing(backend: ContainerBackend) async throws {
        let world = try makeWorld("phone", sync: false, backend: backend)
        let (app, opener) = try launchCounting(world, "phone")
        #expect(opener.count == 0)
        #expect(app.container == nil)
    }
}
