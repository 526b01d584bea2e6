import ContactsSampleSweep
import Foundation
import PrivateCloud
import PrivateCloudFaults
import PrivateSyncEngine
import Synchronization
import Testing

@testable import PrivateSyncEngineTesting

/// The step mixes of the delegate sweep: the even one draws as every earlier version did, and the swarm gives each
/// run a mix of its own, drawn from its seed alone.
@Suite("Delegate sweeps: the mix of steps")
struct SweepStepMixTests {
    /// The draw of a kind of step as versions before the mixes made it: one number below the fixed weights' total,
    /// walked along the kinds in order.
    static func fixedDraw(_ random: inout SweepRandom) -> SweepStepKind {
        var roll = random.int(below: SweepStepKind.allCases.reduce(0) { $0 + $1.weight })
        for kind in SweepStepKind.allCases {
            if roll < kind.weight { return kind }
            roll -= kind.weight
        }
        return .action
    }

    @Test("the even mix draws each step and each reason as the fixed weights did, number for number")
    func evenMixDrawsAsBefore() {
        var ours = SweepRandom(seed: 7)
        var before = SweepRandom(seed: 7)
        for _ in 0..<5_000 {
            #expect(SweepStepWeights.even.drawKind(&ours) == Self.fixedDraw(&before))
            let reasons: [PSDatabase.DatabaseChange.Deletion.Reason] = [.deleted, .purged, .encryptedDataReset]
            #expect(SweepStepWeights.even.drawReason(&ours) == reasons[before.int(below: 3)])
        }
        #expect(SweepStepWeights.even.answerChance == 0.5)
    }

    @Test("a swarm's mix comes from its seed alone, never leaves out the user's actions, and differs between seeds")
    func swarmMixIsTheSeeds() {
        let mixes = (UInt64(0)..<200).map { SweepStepWeights.swarm(seed: $0) }
        #expect(mixes == (UInt64(0)..<200).map { SweepStepWeights.swarm(seed: $0) })
        #expect(mixes.allSatisfy { ($0.kinds[.action] ?? 0) >= SweepStepKind.action.weight })
        #expect(Set(mixes.map(\.summary)).count > 150)
    }

    @Test(
        "across seeds, the swarm leaves out each kind of step but the user's in some runs and favours it in others",
        arguments: SweepStepKind.allCases.filter { $0 != .action })
    func swarmCoversEveryKind(_ kind: SweepStepKind) {
        let factors = (UInt64(0)..<200).map {
            (SweepStepWeights.swarm(seed: $0).kinds[kind] ?? 0) / kind.swarmWeight
        }
        #expect(factors.contains(0))
        #expect(factors.contains(1))
        #expect(factors.contains { $0 >= 3 })
    }

    @Test("across seeds, the swarm favours each reason for a zone's deletion, and each pace of the user's answer")
    func swarmCoversEveryReasonAndPace() {
        let mixes = (UInt64(0)..<200).map { SweepStepWeights.swarm(seed: $0) }
        for reason in SweepStepWeights.reasonOrder {
            #expect(mixes.contains { $0.reasons[reason] == 4 })
        }
        #expect(Set(mixes.map(\.answerChance)) == [0.1, 0.5, 0.9])
    }

    @Test("the even mix interleaves devices' requests as the sweep says; the swarm, in some runs, three times as often")
    func swarmCoversEveryInterleaving() {
        #expect(SweepStepWeights.even.interleavingFactor == 1)
        let mixes = (UInt64(0)..<200).map { SweepStepWeights.swarm(seed: $0) }
        #expect(Set(mixes.map(\.interleavingFactor)) == [1, 3])
    }

    @Test(
        "a swarm's outages and busier interleavings are drawn after everything else: without them, its mix is the one drawn before they existed"
    )
    func outagesAreDrawnLast() {
        for seed in UInt64(0)..<200 {
            let with = SweepStepWeights.swarm(seed: seed)
            var without = SweepStepWeights.swarm(seed: seed, outages: false)
            #expect(without.kinds[.outage] == 0)
            #expect(without.interleavingFactor == 1)
            without.kinds[.outage] = with.kinds[.outage]
            without.interleavingFactor = with.interleavingFactor
            #expect(without == with, "seed \(seed)")
        }
    }

    @Test("a swarm sweep without outages never cuts a device off the network, nor interleaves more than it says")
    func outagesOffLeavesTheNetworkAlone() async {
        let lines = Mutex<[String]>([])
        var configuration = DelegateSweep<SweptContacts>.Configuration()
        configuration.stepMix = .swarm
        configuration.outages = false
        configuration.trace = { line in lines.withLock { $0.append(line) } }
        #expect(await SweptContacts.sweep(configuration: configuration).firstFailure(seeds: 0..<20) == nil)
        let trace = lines.withLock { $0 }
        #expect(!trace.contains { $0.contains("the network goes") })
        let mixes = trace.filter { $0.contains("swarm: steps") }
        #expect(mixes.count == 20)
        #expect(mixes.allSatisfy { $0.contains("outage ×0") && $0.contains("requests interleaved ×1") })
    }

    @Test(
        "a device cut off the network fails every request but the question of who is signed in, held or not, until its spell ends; the heal ends every spell"
    )
    func outageFailsEveryRequestUntilItEnds() {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 0))
        let faults = SweepFaults(seed: 1, storminess: 0, now: { clock.now() })
        let phone = CallTarget(account: nil, device: "device-0")
        faults.cutOff("device-0", until: Date(timeIntervalSince1970: 600))
        // A shorter spell after it does not end it sooner.
        faults.cutOff("device-0", until: Date(timeIntervalSince1970: 60))
        faults.hold()
        let requests: [ContainerCall] = [
            .saveZones, .deleteZones, .allZones, .fetchRecords, .modifyRecords(saves: 1, deletes: 0),
            .recordZoneChanges(hasToken: true), .databaseChanges,
        ]
        for call in requests {
            #expect(faults.nextFault(for: call, target: phone)?.kind == .networkUnavailable, "\(call)")
        }
        #expect(faults.nextFault(for: .userRecordID, target: phone) == nil)
        faults.release()
        #expect(faults.nextFault(for: .databaseChanges, target: phone)?.kind == .networkUnavailable)
        #expect(faults.nextFault(for: .zoneChangesDelivered(changes: 1), target: phone) == nil)
        #expect(faults.nextFault(for: .databaseChanges, target: CallTarget(account: nil, device: "device-1")) == nil)
        clock.advance(by: 599)
        #expect(faults.isOffline("device-0"))
        clock.advance(by: 1)
        #expect(!faults.isOffline("device-0"))
        #expect(faults.nextFault(for: .databaseChanges, target: phone) == nil)
        faults.cutOff("device-0", until: Date(timeIntervalSince1970: 10_000))
        #expect(faults.isOffline("device-0"))
        faults.stop()
        #expect(faults.nextFault(for: .databaseChanges, target: phone) == nil)
        #expect(faults.struck[.networkUnavailable] == requests.count + 1)
    }

    @Test(
        "swarm runs launch apps offline and bring a household back online together: one device's send runs inside another's request"
    )
    func swarmLaunchesOfflineAndReconnectsTogether() async {
        let lines = Mutex<[String]>([])
        var configuration = DelegateSweep<SweptContacts>.Configuration()
        configuration.stepMix = .swarm
        configuration.trace = { line in lines.withLock { $0.append(line) } }
        let sweep = SweptContacts.sweep(configuration: configuration)
        #expect(await sweep.firstFailure(seeds: 0..<100) == nil)
        let trace = lines.withLock { $0 }
        // A first launch offline: the launch (launch 0), then, at the same step and time, its fetch failing for want
        // of a network.
        let firstLaunches = trace.filter { $0.hasSuffix(": launched (launch 0)") }
            .map { $0.dropLast("launched (launch 0)".count) }
        #expect(
            firstLaunches.contains { launch in
                trace.contains { $0.hasPrefix(launch + "its fetch after the change threw <PSError networkUnavailable") }
            })
        #expect(trace.contains { $0.contains("the network is back: ") && $0.contains(" send at once") })
        #expect(trace.contains { $0.contains("back online too, sends first") })
    }

    @Test("a seed of the swarm replays exactly, and its timeline opens with its mix")
    func swarmSeedReplays() async throws {
        var configuration = DelegateSweep<SweptContacts>.Configuration()
        configuration.stepMix = .swarm
        let sweep = SweptContacts.sweep(configuration: configuration, front: { FlawedDelegate(.takesPurgeForReset) })
        let failure = try #require(await sweep.firstFailure(seeds: 0..<300))
        let again = try #require(await sweep.run(seed: failure.seed).failure)
        #expect(again.timeline == failure.timeline)
        #expect(failure.timeline.prefix(3).contains { $0.contains("swarm: steps action ×") })
        let even = await SweptContacts.sweep(front: { FlawedDelegate(.takesPurgeForReset) }).run(seed: failure.seed)
        #expect(even.failure?.timeline != failure.timeline)
    }

    @Test("a crash point armed lets that many writes through, then refuses the next and every later one")
    func crashPointTripsAfterItsWrites() {
        let point = SweepCrashPoint(mayTrip: { true })
        #expect(!point.beforeDurableWrite())
        point.arm(afterWrites: 2)
        #expect(!point.beforeDurableWrite() && !point.beforeDurableWrite())
        #expect(!point.hasTripped)
        #expect(point.beforeDurableWrite())
        #expect(point.hasTripped && point.beforeDurableWrite())
    }

    @Test(
        "a crash point armed never trips while the sweep says it may not (a launch, the heal), nor outside a sweep"
    )
    func crashPointTripsOnlyWhenAllowed() {
        let allowed = Mutex(false)
        let point = SweepCrashPoint(mayTrip: { allowed.withLock { $0 } })
        point.arm(afterWrites: 0)
        #expect(!point.beforeDurableWrite() && !point.beforeDurableWrite())
        allowed.withLock { $0 = true }
        #expect(point.beforeDurableWrite())
        let outside = SweepCrashPoint()
        outside.arm(afterWrites: 0)
        #expect(!outside.beforeDurableWrite() && !outside.hasTripped)
    }
}
