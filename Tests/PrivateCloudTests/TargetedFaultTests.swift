import PrivateSyncSQLite
import Testing

@testable import PrivateCloud
@testable import PrivateCloudFaults

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A fault-injecting container over `backend`, signed into alice, as `device`, with the sync zone and records.
private func makeFaulty(
    _ harness: ContainerHarness, device: String = "phone", records: [String] = ["seed"]
) async throws -> (any PrivateContainer, ScriptedFaults) {
    let session = AccountSession(account: try AccountID("alice"))
    let script = ScriptedFaults()
    let faulty: any PrivateContainer =
        switch harness.backend {
        case .file:
            FaultInjectingContainer(
                base: FileContainer(
                    cloudRoot: harness.cloudRoot, identifier: harness.identifier, session: session,
                    clock: harness.clock, durability: .survivesProcessCrash),
                faults: script, session: session, device: device)
        case .memory:
            FaultInjectingContainer(
                base: harness.memoryContainer(session: session), faults: script, session: session, device: device)
        }
    _ = try await faulty.saveZones([RecordZone(zoneID: syncZone)])
    if !records.isEmpty { try await saveAll(records.map { makeRecord($0) }, to: faulty) }
    return (faulty, script)
}

/// A fault-injecting container over `backend` holding one record (``makeFaulty(_:device:records:)``), with a fault of
/// `kind` added to its script, and the database's change token from before.
private func makeFaulty(
    striking kind: FaultKind, on backend: Backend
) async throws -> (any PrivateContainer, ChangeToken) {
    let (faulty, script) = try await makeFaulty(ContainerHarness(backend))
    let before = try await faulty.databaseChanges(since: nil, resultsLimit: nil).changeToken
    script.add(Fault(kind))
    return (faulty, before)
}

/// Expects the sync zone of `faulty` gone: its changes and saves in it fail `zoneNotFound`, and the database's
/// changes since `before` list it deleted for `reason`. Then creates it again.
private func expectZoneGone(
    _ faulty: any PrivateContainer, since before: ChangeToken, reason: DatabaseChanges.DeletionReason
) async throws {
    #expect(await zoneChangesCode(faulty) == .zoneNotFound)
    #expect(try await saveCode(of: makeRecord("a"), to: faulty) == .zoneNotFound)
    let changes = try await faulty.databaseChanges(since: before, resultsLimit: nil)
    #expect(changes.deletions == [.init(zoneID: syncZone, reason: reason)])
    _ = try await faulty.saveZones([RecordZone(zoneID: syncZone)])
}

/// The names of a page's records and deletions, in the order delivered.
private func names(_ page: RecordZoneChanges) -> [String] {
    page.modifications.map(\.recordID.recordName) + page.deletions.map(\.recordID.recordName)
}

@Suite("Faults aimed at a device or a record, per-item, zone and delivery faults")
struct TargetedFaultTests {
    @Test("a fault aimed at one device strikes only that device's calls", arguments: Backend.allCases)
    func deviceTargeting(backend: Backend) async throws {
        let harness = ContainerHarness(backend)
        let (phone, script) = try await makeFaulty(harness, device: "phone")
        let session = AccountSession(account: try AccountID("alice"))
        let tablet = FaultInjectingContainer(
            base: MemoryContainer(cloud: harness.cloud, identifier: harness.identifier, session: session),
            faults: script, session: session, device: "tablet")
        script.add(Fault(.networkFailure), device: "tablet")
        _ = try await phone.allZones()
        #expect(script.remaining == 1, "the phone's call was let through")
        #expect(await cloudErrorCode { _ = try await tablet.allZones() } == .networkFailure)
        #expect(script.remaining == 0)
    }

    @Test("a partial failure aimed at a record fails that record, not the first", arguments: Backend.allCases)
    func partialFailureHitsTheNamedRecord(backend: Backend) async throws {
        let (faulty, script) = try await makeFaulty(ContainerHarness(backend))
        script.add(Fault(.partialFailure, record: "b"))
        let result = try await faulty.modifyRecords(
            saving: [makeRecord("a"), makeRecord("b"), makeRecord("c")], deleting: [],
            savePolicy: .ifServerRecordUnchanged, atomically: false)
        #expect(result.saveResults[makeRecord("a").recordID]?.cloudCode == nil)
        #expect(result.saveResults[makeRecord("b").recordID]?.cloudCode == .serverRejectedRequest)
        #expect(result.saveResults[makeRecord("c").recordID]?.cloudCode == nil)
    }

    @Test("a fault aimed at a record lets calls that do not name it through")
    func recordTargetingSkipsOtherCalls() async throws {
        let (faulty, script) = try await makeFaulty(ContainerHarness(.memory))
        script.add(Fault(.networkFailure, record: "b"))
        try await saveAll([makeRecord("a")], to: faulty)
        #expect(script.remaining == 1)
        #expect(
            await cloudErrorCode { _ = try await faulty.modifyRecords(saving: [makeRecord("b")], deleting: []) }
                == .networkFailure)
    }

    @Test("after N lets the first N calls it applies to through, then strikes")
    func afterLetsCallsThrough() async throws {
        let (faulty, script) = try await makeFaulty(ContainerHarness(.memory))
        script.add(Fault(.networkUnavailable), count: 1, after: 2)
        _ = try await faulty.allZones()
        _ = try await faulty.allZones()
        #expect(await cloudErrorCode { _ = try await faulty.allZones() } == .networkUnavailable)
        _ = try await faulty.allZones()
    }

    @Test(
        "per-item limitExceeded and quotaExceeded fail one item inside a partial failure",
        arguments: [(FaultKind.itemLimitExceeded, CloudError.Code.limitExceeded), (.itemQuotaExceeded, .quotaExceeded)]
    )
    func perItemCodes(kind: FaultKind, code: CloudError.Code) async throws {
        let (faulty, script) = try await makeFaulty(ContainerHarness(.memory))
        script.add(Fault(kind, record: "b"))
        let result = try await faulty.modifyRecords(saving: [makeRecord("a"), makeRecord("b")], deleting: [])
        #expect(result.saveResults[makeRecord("b").recordID]?.cloudCode == code)
        #expect(result.saveResults[makeRecord("a").recordID]?.cloudCode == .batchRequestFailed)
        #expect(result.partialFailure?.code == .partialFailure)
        #expect(await cloudErrorCode { _ = try await faulty.record(for: makeRecord("a").recordID) } == .unknownItem)
    }

    @Test(
        "zone-not-found deletes the zone, encrypted-data-reset purges it with its own reason; calls fail 26 until it is created again, without its records",
        arguments: [
            (FaultKind.zoneNotFound, DatabaseChanges.DeletionReason.deleted),
            (.encryptedDataReset, .encryptedDataReset),
        ], Backend.allCases)
    func zoneGone(strike: (kind: FaultKind, reason: DatabaseChanges.DeletionReason), backend: Backend) async throws {
        let (faulty, before) = try await makeFaulty(striking: strike.kind, on: backend)
        try await expectZoneGone(faulty, since: before, reason: strike.reason)
        let page = try await faulty.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
        #expect(page.modifications.isEmpty, "the zone's records went with it")
        try await saveAll([makeRecord("a")], to: faulty)
        #expect(await cloudErrorCode { _ = try await faulty.record(for: makeRecord("seed").recordID) } == .unknownItem)
    }

    @Test("a version-1 container file is upgraded when it first records an encrypted-data reset")
    func version1ContainerUpgrades() async throws {
        let harness = ContainerHarness(.file)
        do {
            let (faulty, _) = try await makeFaulty(harness)
            _ = try await faulty.allZones()
        }
        // Make the file what version 1 wrote: the old CHECK on zone_tombstones, user_version 1.
        let path = harness.databasePath("alice")
        let connection = try Connection(path: path, mode: .readWrite)
        try connection.execute(
            """
            BEGIN; DROP TABLE zone_tombstones;
            CREATE TABLE zone_tombstones (change_seq INTEGER PRIMARY KEY, zone_name TEXT NOT NULL,
                incarnation INTEGER NOT NULL, reason TEXT NOT NULL CHECK (reason IN ('deleted', 'purged')));
            CREATE INDEX zone_tombstones_by_name ON zone_tombstones (zone_name, change_seq);
            PRAGMA user_version = 1; COMMIT;
            """)
        let (faulty, script) = try await makeFaulty(harness, records: [])
        script.add(Fault(.encryptedDataReset))
        #expect(await zoneChangesCode(faulty) == .zoneNotFound)
        let changes = try await faulty.databaseChanges(since: nil, resultsLimit: nil)
        #expect(changes.deletions == [.init(zoneID: syncZone, reason: .encryptedDataReset)])
        #expect(try connection.scalarInt("PRAGMA user_version") == 2)
    }

    @Test("duplicate delivery hands the same page back on the next fetch", arguments: [false, true])
    func duplicateDelivery(fromToken: Bool) async throws {
        let (faulty, script) = try await makeFaulty(ContainerHarness(.memory), records: ["a"])
        let start = fromToken ? try await faulty.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil) : nil
        try await saveAll([makeRecord("b"), makeRecord("c")], to: faulty)
        script.add(Fault(.duplicateDelivery))
        let first = try await faulty.recordZoneChanges(in: syncZone, since: start?.changeToken, resultsLimit: nil)
        let second = try await faulty.recordZoneChanges(in: syncZone, since: first.changeToken, resultsLimit: nil)
        #expect(names(first) == names(second))
        #expect(names(second) == (fromToken ? ["b", "c"] : ["a", "b", "c"]))
        let third = try await faulty.recordZoneChanges(in: syncZone, since: second.changeToken, resultsLimit: nil)
        #expect(names(third).isEmpty, "the token advances once the fault is spent")
    }

    @Test("delayed delivery withholds a change from K fetches; it arrives in the next")
    func delayedDelivery() async throws {
        let (faulty, script) = try await makeFaulty(ContainerHarness(.memory), records: ["a", "b", "c"])
        script.add(Fault(.delayedDelivery, record: "b"), count: 2)
        let first = try await faulty.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
        #expect(names(first) == ["a"])
        #expect(!first.moreComing)
        let second = try await faulty.recordZoneChanges(in: syncZone, since: first.changeToken, resultsLimit: nil)
        #expect(names(second).isEmpty)
        let third = try await faulty.recordZoneChanges(in: syncZone, since: second.changeToken, resultsLimit: nil)
        #expect(names(third) == ["b", "c"])
        #expect(script.remaining == 0)
    }

    @Test(
        "a withheld change names its zone again for every database token taken before it showed",
        arguments: Backend.allCases)
    func delayedDeliveryReportsTheZoneAgain(_ backend: Backend) async throws {
        let (faulty, script) = try await makeFaulty(ContainerHarness(backend), records: ["a", "b"])
        let token = try await faulty.databaseChanges(since: nil, resultsLimit: nil).changeToken
        #expect(try await faulty.databaseChanges(since: token, resultsLimit: nil).modifiedZoneIDs.isEmpty)
        script.add(Fault(.delayedDelivery, record: "b"))
        let withheld = try await faulty.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
        let told = try await faulty.databaseChanges(since: token, resultsLimit: nil)
        #expect(told.modifiedZoneIDs == [syncZone])
        // A device that crashed before it handled that report is told again.
        #expect(try await faulty.databaseChanges(since: token, resultsLimit: nil).modifiedZoneIDs == [syncZone])
        let rest = try await faulty.recordZoneChanges(in: syncZone, since: withheld.changeToken, resultsLimit: nil)
        #expect(names(rest) == ["b"])
        #expect(try await faulty.databaseChanges(since: told.changeToken, resultsLimit: nil).modifiedZoneIDs.isEmpty)
    }

    @Test("what a delayed delivery withheld is the server's: an engine resumed from a state kept before is told")
    func withheldChangesOutliveALaunch() async throws {
        let harness = ContainerHarness(.memory)
        let session = AccountSession(account: try AccountID("alice"))
        let script = ScriptedFaults()
        func launch(_ device: String) -> any PrivateContainer {
            FaultInjectingContainer(
                base: harness.memoryContainer(session: session), faults: script, session: session, device: device)
        }
        let first = launch("phone")
        _ = try await first.saveZones([RecordZone(zoneID: syncZone)])
        try await saveAll(["a", "b"].map { makeRecord($0) }, to: first)
        let kept = try await first.databaseChanges(since: nil, resultsLimit: nil).changeToken
        script.add(Fault(.delayedDelivery, record: "b"))
        let withheld = try await first.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
        // One engine reads the zone to its end (swarm seed 1753: a paused engine, thrown away after)…
        let read = try await first.databaseChanges(since: kept, resultsLimit: nil)
        #expect(read.modifiedZoneIDs == [syncZone])
        #expect(
            names(try await first.recordZoneChanges(in: syncZone, since: withheld.changeToken, resultsLimit: nil))
                == ["b"])
        #expect(try await first.databaseChanges(since: read.changeToken, resultsLimit: nil).modifiedZoneIDs.isEmpty)
        // …and another, resumed from the state kept before the change showed, is still told of the zone.
        #expect(
            try await launch("phone").databaseChanges(since: kept, resultsLimit: nil).modifiedZoneIDs == [syncZone])
    }

    @Test(
        "an announce reaches only the zone and the database of its token: not the zone made again, not another account's"
    )
    func announceReachesOnlyTheTokensZone() async throws {
        let harness = ContainerHarness(.memory)
        let session = AccountSession(account: try AccountID("alice"))
        let container = harness.memoryContainer(session: session)
        func zoneToken() async throws -> ChangeToken {
            try await container.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil).changeToken
        }
        func listed(since token: ChangeToken) async throws -> [ZoneID] {
            try await container.databaseChanges(since: token, resultsLimit: nil).modifiedZoneIDs
        }
        _ = try await container.saveZones([RecordZone(zoneID: syncZone)])
        try await saveAll([makeRecord("a")], to: container)
        let beforeDeletion = try await zoneToken()
        try await container.deleteZones([syncZone])
        _ = try await container.saveZones([RecordZone(zoneID: syncZone)])
        let aliceKept = try await container.databaseChanges(since: nil, resultsLimit: nil).changeToken
        try await container.announceChangesBecameVisible(after: beforeDeletion)
        #expect(try await listed(since: aliceKept).isEmpty, "the change went with the zone it was made in")
        await #expect(throws: CloudError.self) { try await container.announceChangesBecameVisible(after: aliceKept) }
        let alices = try await zoneToken()
        session.signIn(try AccountID("bob"))
        _ = try await container.saveZones([RecordZone(zoneID: syncZone)])
        let bobKept = try await container.databaseChanges(since: nil, resultsLimit: nil).changeToken
        try await container.announceChangesBecameVisible(after: alices)
        #expect(try await listed(since: bobKept).isEmpty, "alice's change is nothing of bob's database")
        try await container.announceChangesBecameVisible(after: try await zoneToken())
        #expect(try await listed(since: bobKept) == [syncZone])
    }

    @Test("a delayed delivery whose announce cannot be written withholds nothing: the change is never hidden for good")
    func unannouncedDelayWithholdsNothing() async throws {
        let harness = ContainerHarness(.memory)
        let session = AccountSession(account: try AccountID("alice"))
        let script = ScriptedFaults()
        let faulty = FaultInjectingContainer(
            base: UnannouncingContainer(harness.memoryContainer(session: session)), faults: script, session: session,
            device: "phone")
        _ = try await faulty.saveZones([RecordZone(zoneID: syncZone)])
        try await saveAll(["a", "b"].map { makeRecord($0) }, to: faulty)
        script.add(Fault(.delayedDelivery, record: "b"))
        let page = try await faulty.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
        #expect(names(page) == ["a", "b"])
        #expect(faulty.injectedFaults[.delayedDelivery] == 1, "the fault struck, and withheld nothing")
    }

    @Test("a zone deleted after a change of it was withheld is reported deleted, not changed")
    func withheldChangesGoWithTheZone() async throws {
        let (faulty, script) = try await makeFaulty(ContainerHarness(.memory), records: ["a", "b"])
        let kept = try await faulty.databaseChanges(since: nil, resultsLimit: nil).changeToken
        script.add(Fault(.delayedDelivery, record: "b"))
        _ = try await faulty.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
        try await faulty.deleteZones([syncZone])
        let changes = try await faulty.databaseChanges(since: kept, resultsLimit: nil)
        #expect(changes.modifiedZoneIDs.isEmpty, "a zone that is gone has nothing withheld to tell of")
        #expect(changes.deletions == [.init(zoneID: syncZone, reason: .deleted)])
    }

    @Test("reordered pages deliver a page's records in reverse order")
    func reorderedPages() async throws {
        let (faulty, script) = try await makeFaulty(ContainerHarness(.memory), records: ["a", "b", "c"])
        script.add(Fault(.reorderedPages))
        let page = try await faulty.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
        #expect(names(page) == ["c", "b", "a"])
    }

    @Test("delivery faults never strike a call, and an empty page spends none")
    func deliveryFaultsOnlyStrikePages() async throws {
        let (faulty, script) = try await makeFaulty(ContainerHarness(.memory), records: [])
        script.add(Fault(.duplicateDelivery))
        _ = try await faulty.allZones()
        _ = try await faulty.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
        #expect(script.remaining == 1)
        #expect(FaultKind.allCases.filter(\.isDelivery).allSatisfy { $0.code == nil })
        #expect(
            FaultKind.allCases.filter { !$0.isDelivery }.allSatisfy {
                !$0.applies(to: .zoneChangesDelivered(changes: 3))
            })
    }

    @Test("every kind has a Swift name and a CLI name")
    func everyKindIsNamedTwice() {
        #expect(FaultKind.encryptedDataReset.swiftName == "encryptedDataReset")
        #expect(FaultKind.itemLimitExceeded.rawValue == "item-limit-exceeded")
        #expect(Set(FaultKind.allCases.map(\.swiftName)).count == FaultKind.allCases.count)
    }
}
