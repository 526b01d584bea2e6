import ContactsSampleSweep
import Foundation
import Synchronization
import Testing

@testable import PrivateSyncEngineTesting

/// The delegate sweep: Apple's sample passes it, and each flawed delegate is found, with the invariant it breaks.
@Suite("Delegate sweeps: seeded faults, crashes and accounts over a team's own delegate")
struct DelegateSweepTests {
    @Test("Apple's sample delegate, as fixed here, passes 100 seeds in memory (make sweep: 10,000)")
    func samplePassesInMemory() async {
        let report = await SweptContacts.sweep().sweep(seeds: 0..<100)
        #expect(report.failures.isEmpty, "\(report)")
        #expect(report.seeds == 100)
        #expect(report.crashes > 0 && report.faults > 0)
    }

    @Test(
        "Apple's sample delegate passes 20 seeds on SQLite files, and 100 under the swarm",
        arguments: [
            (DelegateSweep<SweptContacts>.Configuration.Storage.files, SweepStepMix.even, UInt64(20)),
            (.memory, .swarm, 100),
        ])
    func samplePasses(
        storage: DelegateSweep<SweptContacts>.Configuration.Storage, stepMix: SweepStepMix, seeds: UInt64
    )
        async
    {
        var configuration = DelegateSweep<SweptContacts>.Configuration()
        configuration.storage = storage
        configuration.stepMix = stepMix
        let report = await SweptContacts.sweep(configuration: configuration).sweep(seeds: 0..<seeds)
        #expect(report.failures.isEmpty, "\(report)")
        #expect(report.seeds == Int(seeds))
    }

    /// The flaws fronting the sample: all but the one it cannot have (it fetches no deletion it keeps).
    static let sampleFlaws = FlawedDelegate.Flaw.allCases.filter { $0 != .ignoresFetchedDeletions }

    @Test("a flawed delegate is found within 300 seeds, naming what it breaks", arguments: sampleFlaws)
    func flawFound(_ flaw: FlawedDelegate.Flaw) async throws {
        let sweep = SweptContacts.sweep(front: { FlawedDelegate(flaw) })
        let failure = try #require(await sweep.firstFailure(seeds: 0..<300))
        #expect(flaw.brokenInvariants.contains(failure.invariant), "\(failure)")
    }

    @Test(
        "a finished run keeps none of its apps alive (nor their engines, files, or open databases), fronted or not",
        arguments: [false, true])
    func runsReleaseTheirApps(fronted: Bool) async {
        let launched = Mutex<[WeakApp]>([])
        let sweep = DelegateSweep(
            makeApp: { device in
                let front = fronted ? FlawedDelegate(.forgetsStateUpdates) : nil
                let app = SweptContacts(device: device, front: front)
                front?.attach(app.contacts)
                launched.withLock { $0 += [WeakApp(app), WeakApp(app.contacts)] }
                return app
            },
            actions: SweptContacts.actions, serverSnapshot: SweptContacts.serverSnapshot)
        for seed in UInt64(0)..<5 { _ = await sweep.run(seed: seed) }
        // A device's container held its run, and the run its devices: every run stayed, with every app it launched
        // (the partition mirror's sweep ran out of file descriptors after some 2,700 seeds). And a front that held
        // the delegate it fronts, which holds the front, kept each fronted app.
        let alive = launched.withLock { $0.filter { $0.app != nil }.count }
        #expect(launched.withLock { $0.count } >= 20)
        #expect(alive == 0)
    }

    @Test("a seed replays exactly: the same run, the same failure, the same timeline")
    func seedReplays() async throws {
        let sweep = SweptContacts.sweep(front: { FlawedDelegate(.takesPurgeForReset) })
        let failure = try #require(await sweep.firstFailure(seeds: 0..<300))
        let again = try #require(await sweep.run(seed: failure.seed).failure)
        #expect(again.invariant == failure.invariant)
        #expect(again.message == failure.message)
        #expect(again.timeline == failure.timeline)
    }

    @Test("a failing seed's timeline page shows what a hostile record holds as text, never as markup")
    func timelinePageEscapes() {
        let hostile = "<script>alert('x')</script>\u{0}\"&"
        let failure = DelegateSweepFailure(
            seed: 7, invariant: .privacy, message: hostile, timeline: ["device-0 fetched \(hostile)"])
        let page = failure.timelinePage
        #expect(!page.contains("<script>"))
        #expect(!page.contains("\u{0}"))
        #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(page.contains("Seed 7 broke privacy"))
    }

    @Test("a record the server refuses for good has its saves refused, never its delete")
    func refusalSparesDeletes() throws {
        let faults = SweepFaults(seed: 0, storminess: 0, now: { Date(timeIntervalSince1970: 0) })
        faults.refuseForGood("r")
        let call = ContainerCall.modifyRecords(saves: 1, deletes: 1)
        let alice = try AccountID("alice")
        let deletingIt = CallTarget(account: alice, recordNames: ["r", "s"], savedRecordNames: ["s"])
        #expect(faults.nextFault(for: call, target: deletingIt) == nil)
        let savingIt = CallTarget(account: alice, recordNames: ["r", "s"], savedRecordNames: ["r"])
        #expect(faults.nextFault(for: call, target: savingIt) == Fault(.partialFailure, record: "r"))
    }
}

/// An app, or its delegate, a test watches go, without keeping it.
final class WeakApp: Sendable {
    weak let app: (any AnyObject & Sendable)?

    init(_ app: any AnyObject & Sendable) {
        self.app = app
    }
}
