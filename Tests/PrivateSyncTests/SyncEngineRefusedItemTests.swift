import PrivateSyncTesting
import Synchronization
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One item of a request that the container refuses for good, or answers in a way no container should: it is set
/// aside, and the others go on.
@Suite("Sync engine: an item the container refuses or answers wrongly")
struct SyncEngineRefusedItemTests {
    @Test("a record the server rejects for good does not hold back the others")
    func oneRejectedRecordDoesNotBlockTheQueue() async throws {
        let world = try makeWorld("phone")
        let phone = try world.launch("phone") { base in AnsweringContainer.refusingNotes(base: base) }
        await phone.sync()
        // The server refuses every save of a CheckIn with a note for good (as it would a value of another type than
        // a field's, had another client fixed that type first).
        let rejected = try phone.checkIn(1, note: "text")
        for mood in 2...6 { try phone.checkIn(Int64(mood)) }
        let report = try #require(await phone.sync(force: true))
        #expect(report.sentSaves == 5)
        #expect(try phone.stores.userCreated.pendingChanges().map(\.recordName) == [rejected.name])
        guard case .on(.waiting)? = try? phone.status().state else {
            Issue.record("expected on/waiting for the rejected record, got \(try phone.status())")
            return
        }
    }

    @Test("a save the container answers without its system fields is set aside and retried, not a crash")
    func saveAnsweredWithoutSystemFields() async throws {
        let world = try makeWorld("phone")
        let phone = try world.launch("phone") { base in AnsweringContainer.strippingSystemFields(base: base) }
        let record = try phone.checkIn(1)
        let report = try #require(await phone.sync(force: true))
        #expect(report.outcome == .retrying(.internalError))
        #expect(try phone.stores.userCreated.pendingChanges().map(\.recordName) == [record.name], "still to send")
    }
}

/// A container double that passes every call to `base` through `answer`, which makes it (or not) and says what the
/// container replies.
private final class AnsweringContainer: InterceptingContainer {
    typealias Answer =
        @Sendable (
            _ call: InterceptedCall, _ base: any PrivateContainer
        ) async throws(CloudError) -> InterceptedCall.Reply

    let base: any PrivateContainer
    let answer: Answer
    var identifier: ContainerIdentifier { base.identifier }

    init(base: any PrivateContainer, answer: @escaping Answer) {
        self.base = base
        self.answer = answer
    }

    func intercept(_ call: InterceptedCall) async throws(CloudError) -> InterceptedCall.Reply {
        try await answer(call, base)
    }

    /// Answers every accepted save with the record stripped of its system fields, as no real container does.
    static func strippingSystemFields(base: any PrivateContainer) -> AnsweringContainer {
        AnsweringContainer(base: base) { call, base throws(CloudError) in
            let reply = try await base.perform(call)
            guard case .modified(var result) = reply else { return reply }
            for (id, outcome) in result.saveResults {
                guard case .success(let saved) = outcome else { continue }
                var stripped = Record(recordType: saved.recordType, recordID: saved.recordID, systemFields: nil)
                for key in saved.allKeys { stripped[key] = saved[key] }
                result.saveResults[id] = .success(stripped)
            }
            return .modified(result)
        }
    }

    /// Refuses, for good (`invalidArguments`), every save of a record carrying a `note`.
    static func refusingNotes(base: any PrivateContainer) -> AnsweringContainer {
        AnsweringContainer(base: base) { call, base throws(CloudError) in
            guard case .modifyRecords(let saving, let deleting, let policy, let atomically) = call else {
                return try await base.perform(call)
            }
            let refused = saving.filter { $0["note"] != nil }
            let reply = try await base.perform(
                .modifyRecords(
                    saving: saving.filter { $0["note"] == nil }, deleting: deleting, savePolicy: policy,
                    atomically: atomically))
            guard case .modified(var result) = reply else { return reply }
            for record in refused {
                result.saveResults[record.recordID] = .failure(
                    CloudError(.invalidArguments, "field note of record type CheckIn holds int64 values"))
            }
            return .modified(result)
        }
    }
}
