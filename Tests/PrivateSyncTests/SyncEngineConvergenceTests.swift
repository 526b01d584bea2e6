import PrivateSyncTesting
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Sync engine: convergence")
struct SyncEngineConvergenceTests {
    @Test("two devices on one account converge", arguments: ContainerBackend.allCases)
    func twoDevicesConverge(backend: ContainerBackend) async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet(backend: backend)
        for mood in 1...3 { try phone.checkIn(Int64(mood)) }
        for mood in 4...5 { try tablet.checkIn(Int64(mood)) }
        await syncUntilQuiet([phone, tablet])
        let cloud = try containerContents(world, "alice")
        #expect(cloud.count == 5)
        #expect(try contents(phone) == cloud)
        #expect(try contents(tablet) == cloud)
        #expect(try phone.status().state == .on(.upToDate))
        #expect(try tablet.status().state == .on(.upToDate))
    }

    @Test("three devices converge after arbitrary interleavings of edits, deletes and syncs", arguments: 0..<12)
    func threeDevicesConverge(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let world = try TestWorld()
        var apps: [LaunchedApp] = []
        for name in ["phone", "tablet", "laptop"] {
            try world.addDevice(name, account: "alice", sync: true)
            apps.append(try world.launch(name))
        }
        for _ in 0..<60 {
            let app = apps[Int(random.next() % 3)]
            world.clock.advance(by: Double(random.next() % 5))
            let names = Array(app.userRecordNames).sorted()
            switch random.next() % 6 {
            case 0, 1: try app.checkIn(Int64(random.next() % 5), note: "n\(random.next() % 100)")
            case 2 where !names.isEmpty:
                try app.edit(
                    names[Int(random.next() % UInt64(names.count))], setting: ["mood": .int64(Int64(random.next() % 5))]
                )
            case 3 where !names.isEmpty:
                try app.edit(
                    names[Int(random.next() % UInt64(names.count))],
                    setting: ["note": random.chance(0.5) ? nil : .string("edited")])
            case 4 where !names.isEmpty: try app.delete(names[Int(random.next() % UInt64(names.count))])
            default: await app.sync(force: true)
            }
        }
        await syncUntilQuiet(apps)
        let cloud = try containerContents(world, "alice")
        for app in apps { #expect(try contents(app) == cloud, "\(app.device.name) differs from the container") }
    }

    @Test("a device that missed many edits catches up in one sync, page by page")
    func offlineDeviceCatchesUp() async throws {
        let (_, phone, tablet) = try launchedPhoneAndTablet()
        await syncUntilQuiet([phone, tablet])
        var names: [String] = []
        for mood in 0..<900 { names.append(try phone.checkIn(Int64(mood % 5)).name) }
        for name in names.prefix(100) { try phone.edit(name, setting: ["note": .string("edited")]) }
        for name in names.suffix(50) { try phone.delete(name) }
        let sent = await phone.sync()
        #expect(sent?.sentSaves == 850)
        let caughtUp = try #require(await tablet.sync())
        #expect(caughtUp.fetchedModifications == 850)
        #expect(try contents(tablet) == contents(phone))
    }

    @Test("pending changes go out in batches within 400 items; a refused batch is split and retried")
    func batching() async throws {
        let world = try makeWorld("phone")
        let (phone, observed) = try launchObserved(world, "phone")
        for mood in 0..<1000 { try phone.checkIn(Int64(mood % 5)) }
        try world.inject(.limitExceeded, count: 2)
        let report = try #require(await phone.sync())
        #expect(report.sentSaves == 1000)
        #expect(observed.tally.requestSizes.allSatisfy { $0 <= 400 })
        #expect(observed.tally.requestSizes.prefix(3) == [400, 200, 100])
        #expect(report.events.contains(.batchSplit(from: 400, to: 200)))
        #expect(try world.containerRecords(account: "alice").count == 1000)
    }

    @Test("an expired token refetches from scratch, without duplicating records or losing a deletion")
    func expiredTokenRefetches() async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        let doomed = try phone.checkIn(1)
        try phone.checkIn(2)
        await syncUntilQuiet([phone, tablet])
        try phone.delete(doomed.name)
        try phone.checkIn(3)
        await phone.sync()
        try world.inject(.tokenExpired)
        let report = try #require(await tablet.sync())
        #expect(report.events.contains(.changeTokenExpired))
        #expect(try contents(tablet) == containerContents(world, "alice"))
        #expect(try tablet.stores.userCreated.count() == 2)
    }

    @Test("the engine's state survives a relaunch: the next fetch starts from the saved token")
    func tokensSurviveRelaunch() async throws {
        let (world, phone) = try launchedPhone()
        for mood in 0..<5 { try phone.checkIn(Int64(mood)) }
        await phone.sync()
        let echo = try #require(await phone.sync())
        #expect(echo.fetchedModifications == 5, "the device's own saves come back once")
        let relaunched = try world.launch("phone")

        let report = try #require(await relaunched.sync())
        #expect(report.fetchedModifications == 0, "nothing is fetched twice")
        #expect(try relaunched.status().state == .on(.upToDate))
    }

    @Test("the engine asks to run when changes wait, and not when there is nothing to do")
    func nextRunDate() async throws {
        let (world, phone) = try launchedPhone()
        let engine = try #require(phone.engine)
        #expect(engine.nextRunDate() == nil)
        try phone.checkIn(3)
        #expect(engine.nextRunDate() == world.clock.now())
        await phone.sync()
        #expect(engine.nextRunDate() == nil)
    }

    @Test("the engine's counters agree with what the container saw")
    func countersAgreeWithTheContainer() async throws {
        let world = try makeWorld("phone", "tablet")
        let (phone, phoneSeen) = try launchObserved(world, "phone")
        let (tablet, tabletSeen) = try launchObserved(world, "tablet")
        for mood in 0..<7 { try phone.checkIn(Int64(mood % 5)) }
        let last = try tablet.checkIn(2)
        await syncUntilQuiet([phone, tablet])
        try tablet.delete(last.name)
        await syncUntilQuiet([phone, tablet])
        for (app, seen) in [(phone, phoneSeen), (tablet, tabletSeen)] {
            let state = try #require(try app.engine?.state().totals)
            #expect(state.sentSaves == seen.tally.acceptedSaves)
            #expect(state.sentDeletes == seen.tally.acceptedDeletes)
        }
        #expect(
            phoneSeen.tally.acceptedSaves == 7 && tabletSeen.tally.acceptedSaves == 1
                && tabletSeen.tally.acceptedDeletes == 1)
    }

    /// In which order the two creators of one name reach the server.
    enum CreatorsOrder: String, CaseIterable, CustomTestStringConvertible {
        case laterSyncsFirst = "the later creator syncs first"
        case laterSendsFirst = "the later creator sends first, both send only"
        case earlierSyncsFirst = "the earlier creator syncs first"

        var testDescription: String { rawValue }
    }

    @Test(
        "one name created on two devices converges on the earlier creation time, in every order",
        arguments: CreatorsOrder.allCases)
    func sameNameCreatedTwiceConverges(_ order: CreatorsOrder) async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        let fields: [String: FieldValue] = ["mood": .int64(1), "date": .date(world.clock.now())]
        let earlier = try phone.add("CheckIn", name: "tag", fields: fields)
        world.clock.advance(by: 0.3)
        try tablet.add("CheckIn", name: "tag", fields: fields.merging(["mood": .int64(2)]) { $1 })
        switch order {
        case .laterSyncsFirst:
            await tablet.sync(force: true)
            await phone.sync(force: true)
        case .laterSendsFirst:
            await tablet.sendChanges(force: true)
            await phone.sendChanges(force: true)
        case .earlierSyncsFirst:
            await phone.sync(force: true)
            await tablet.sync(force: true)
        }
        await syncUntilQuiet([phone, tablet])
        for app in [phone, tablet] {
            let record = try #require(try app.stores.userCreated.record(named: "tag"))
            #expect(record.createdAt == earlier.createdAt, "\(app.device.name) keeps another creation time")
        }
        let reports = try world.world.convergenceAudit()
        #expect(reports.count == 2 && reports.allSatisfy(\.isConverged), "\(reports)")
    }
}
