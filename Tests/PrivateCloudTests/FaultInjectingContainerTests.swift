import Testing

@testable import PrivateCloud
@testable import PrivateCloudFaults

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Fault-injecting container")
struct FaultInjectingContainerTests {
    /// A faulty container over a fresh backend, with a zone and one record.
    static func makeFaulty(
        _ backend: Backend = .memory
    ) async throws -> (
        FaultInjectingContainer<MemoryContainer>, ScriptedFaults, ContainerHarness
    ) {
        let (faulty, script, harness, _) = try await makeFaultyWithSession()
        return (faulty, script, harness)
    }

    /// ``makeFaulty(_:)``, with the account session its calls go through.
    static func makeFaultyWithSession() async throws -> (
        FaultInjectingContainer<MemoryContainer>, ScriptedFaults, ContainerHarness, AccountSession
    ) {
        let harness = ContainerHarness(.memory)
        let session = AccountSession(account: try AccountID("alice"))
        let base = MemoryContainer(
            cloud: harness.cloud, identifier: harness.identifier, session: session, clock: harness.clock)
        let script = ScriptedFaults()
        let faulty = FaultInjectingContainer(base: base, faults: script, session: session)
        _ = try await faulty.saveZones([RecordZone(zoneID: syncZone)])
        try await saveAll([makeRecord("seed")], to: faulty)
        return (faulty, script, harness, session)
    }

    @Test(
        "call-failing faults fail the call with CloudKit's code, and a retry-after where CloudKit gives one",
        arguments: [
            FaultKind.networkUnavailable, .networkFailure, .serviceUnavailable, .rateLimited, .zoneBusy,
            .accountTemporarilyUnavailable, .quotaExceeded, .limitExceeded,
        ])
    func callFailingFaults(kind: FaultKind) async throws {
        let (faulty, script, _) = try await Self.makeFaulty()
        script.add(Fault(kind, retryAfter: 42))
        do {
            _ = try await faulty.modifyRecords(saving: [makeRecord("a"), makeRecord("b")], deleting: [])
            Issue.record("the fault did not strike")
        } catch {
            #expect(error.code == kind.code)
            #expect(error.retryAfter == (kind.hasRetryAfter ? 42 : nil))
        }
        #expect(faulty.injectedFaults == [kind: 1])
        #expect(
            await cloudErrorCode { _ = try await faulty.record(for: makeRecord("a").recordID) } == .unknownItem,
            "nothing was applied")
    }

    @Test("a lost response follows an applied write")
    func serverResponseLostAppliesTheWrite() async throws {
        let (faulty, script, _) = try await Self.makeFaulty()
        script.add(Fault(.serverResponseLost))
        #expect(
            await cloudErrorCode { _ = try await faulty.modifyRecords(saving: [makeRecord("a")], deleting: []) }
                == .serverResponseLost)
        #expect(try await faulty.record(for: makeRecord("a").recordID).recordType == "Note")
        let replay = try await faulty.modifyRecords(saving: [makeRecord("a")], deleting: [])
        #expect(
            replay.saveResults[makeRecord("a").recordID]?.cloudCode == .serverRecordChanged,
            "a replay cannot apply twice")
    }

    @Test("a user-deleted zone is really deleted, for this call and the ones after")
    func userDeletedZoneDeletesTheZone() async throws {
        let (faulty, script, _) = try await Self.makeFaulty()
        script.add(Fault(.userDeletedZone))
        #expect(try await saveCode(of: makeRecord("a"), to: faulty) == .userDeletedZone)
        #expect(await zoneChangesCode(faulty) == .userDeletedZone)
        let changes = try await faulty.databaseChanges(since: nil, resultsLimit: nil)
        #expect(changes.deletions == [.init(zoneID: syncZone, reason: .purged)])
    }

    @Test(
        "a zone fault removes the zone even while the account cannot make calls, so a counted fault took effect",
        arguments: [FaultKind.userDeletedZone, .encryptedDataReset])
    func zoneFaultTakesEffectWhileTheAccountIsUnavailable(kind: FaultKind) async throws {
        let (faulty, script, _, session) = try await Self.makeFaultyWithSession()
        session.setStatus(.temporarilyUnavailable)
        script.add(Fault(kind))
        #expect(await zoneChangesCode(faulty) == .accountTemporarilyUnavailable)
        #expect(faulty.injectedFaults == [kind: 1])
        session.setStatus(.available)
        let changes = try await faulty.databaseChanges(since: nil, resultsLimit: nil)
        #expect(
            changes.deletions == [
                .init(zoneID: syncZone, reason: kind == .userDeletedZone ? .purged : .encryptedDataReset)
            ])
    }

    @Test("a partial failure fails one item and, atomically, the rest of its zone")
    func partialFailureAtomic() async throws {
        let (faulty, script, _) = try await Self.makeFaulty()
        script.add(Fault(.partialFailure))
        let result = try await faulty.modifyRecords(saving: [makeRecord("a"), makeRecord("b")], deleting: [])
        #expect(result.saveResults[makeRecord("a").recordID]?.cloudCode == .serverRejectedRequest)
        #expect(result.saveResults[makeRecord("b").recordID]?.cloudCode == .batchRequestFailed)
        #expect(result.partialFailure?.partialErrors.count == 2)
        #expect(await cloudErrorCode { _ = try await faulty.record(for: makeRecord("b").recordID) } == .unknownItem)
    }

    @Test("a non-atomic partial failure applies the other items")
    func partialFailureNonAtomic() async throws {
        let (faulty, script, _) = try await Self.makeFaulty()
        script.add(Fault(.partialFailure))
        let result = try await faulty.modifyRecords(
            saving: [makeRecord("a"), makeRecord("b")], deleting: [], savePolicy: .ifServerRecordUnchanged,
            atomically: false)
        #expect(result.saveResults[makeRecord("a").recordID]?.cloudCode == .serverRejectedRequest)
        #expect(result.saveResults[makeRecord("b").recordID]?.cloudCode == nil)
    }

    @Test("token expiry strikes only fetches that carry a token")
    func tokenExpiryNeedsAToken() async throws {
        let (faulty, script, _) = try await Self.makeFaulty()
        script.add(Fault(.tokenExpired))
        let first = try await faulty.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
        #expect(script.remaining == 1)
        #expect(
            await cloudErrorCode {
                _ = try await faulty.recordZoneChanges(in: syncZone, since: first.changeToken, resultsLimit: nil)
            } == .changeTokenExpired)
        #expect(script.remaining == 0)
    }

    @Test("a scripted fault strikes as many times as asked, and only its account")
    func scriptedCountAndAccount() async throws {
        let harness = ContainerHarness(.memory)
        let session = AccountSession(account: try AccountID("alice"))
        let script = ScriptedFaults()
        let faulty = FaultInjectingContainer(
            base: MemoryContainer(cloud: harness.cloud, identifier: harness.identifier, session: session),
            faults: script, session: session)
        script.add(Fault(.networkFailure), account: try AccountID("bob"), count: 2)
        _ = try await faulty.allZones()
        session.signIn(try AccountID("bob"))
        #expect(await cloudErrorCode { _ = try await faulty.allZones() } == .networkFailure)
        #expect(await cloudErrorCode { _ = try await faulty.allZones() } == .networkFailure)
        _ = try await faulty.allZones()
    }

    @Test("random faults are a function of the seed")
    func randomFaultsAreSeeded() {
        func draw(_ seed: UInt64) -> [String] {
            let source = RandomFaults(
                seed: seed, rates: Dictionary(uniqueKeysWithValues: FaultKind.allCases.map { ($0, 0.05) }))
            return (0..<2000).map { index in
                let call: ContainerCall =
                    index % 3 == 0 ? .modifyRecords(saves: 3, deletes: 1) : .recordZoneChanges(hasToken: true)
                return source.nextFault(for: call, account: nil).map { "\($0.kind)/\($0.retryAfter ?? 0)" } ?? "-"
            }
        }
        let first = draw(7)
        #expect(first == draw(7))
        #expect(first != draw(8))
        #expect(Set(first).count > 5, "several kinds strike")
    }
}
