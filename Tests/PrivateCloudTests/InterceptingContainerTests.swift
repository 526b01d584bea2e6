import Synchronization
import Testing

@testable import PrivateCloud
@testable import PrivateCloudFaults

/// An intercepting container that records every call it sees and hands it on unchanged, or answers with a reply
/// of the wrong kind when told to.
private final class RecordingContainer: InterceptingContainer {
    let base: MemoryContainer
    var identifier: ContainerIdentifier { base.identifier }
    let seen = Mutex<[InterceptedCall.Kind]>([])
    let answerWrongly: Bool

    init(base: MemoryContainer, answerWrongly: Bool = false) {
        self.base = base
        self.answerWrongly = answerWrongly
    }

    func intercept(_ call: InterceptedCall) async throws(CloudError) -> InterceptedCall.Reply {
        seen.withLock { $0.append(call.kind) }
        if answerWrongly { return .zonesDeleted }
        return try await base.perform(call)
    }
}

@Suite("Intercepting container")
struct InterceptingContainerTests {
    static func makeBase() throws -> MemoryContainer {
        let harness = ContainerHarness(.memory)
        return MemoryContainer(
            cloud: harness.cloud, identifier: harness.identifier,
            session: AccountSession(account: try AccountID("alice")),
            clock: harness.clock)
    }

    @Test("each of the nine calls passes through the one hook, in order, and its reply comes back unchanged")
    func everyCallPassesThroughTheHook() async throws {
        let container = RecordingContainer(base: try Self.makeBase())
        #expect(await container.accountStatus() == .available)
        _ = try await container.userRecordID()
        #expect(try await container.saveZones([RecordZone(zoneID: syncZone)]).map(\.zoneID) == [syncZone])
        let result = try await container.modifyRecords(
            saving: [makeRecord("a")], deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: true)
        #expect(result.saveResults.count == 1)
        #expect(try await container.records(for: [makeRecord("a").recordID]).count == 1)
        #expect(
            try await container.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil).modifications.count == 1)
        _ = try await container.databaseChanges(since: nil, resultsLimit: nil)
        try await container.deleteZones([syncZone])
        #expect(try await container.allZones().map(\.zoneID) == [.default])
        #expect(
            container.seen.withLock { $0 } == [
                .accountStatus, .userRecordID, .saveZones, .modifyRecords, .records, .recordZoneChanges,
                .databaseChanges, .deleteZones, .allZones,
            ])
    }

    @Test("a reply of another kind than the call's is an internal error, and the account status undetermined")
    func mismatchedReplyIsAnInternalError() async throws {
        let container = RecordingContainer(base: try Self.makeBase(), answerWrongly: true)
        #expect(await cloudErrorCode { _ = try await container.allZones() } == .internalError)
        #expect(await container.accountStatus() == .couldNotDetermine)
        try await container.deleteZones([syncZone])
    }
}
