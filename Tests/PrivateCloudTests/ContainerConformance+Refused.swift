import Testing

@testable import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ContainerConformance {
    @Suite("Refused requests")
    struct RefusedRequests {
        @Test(
            "a request none of whose items applied changes nothing, not even the change tags to come",
            arguments: Backend.allCases)
        func nothingAppliedChangesNothing(backend: Backend) async throws {
            let (harness, container) = try await ContainerHarness.withSyncZone(backend)
            defer { withExtendedLifetime(harness) {} }  // the file backend's folder lives as long as the harness
            let first = try await saveAll([makeRecord("a", fields: ["n": .int64(1)])], to: container)[0]
            let before = try await container.databaseChanges(since: nil, resultsLimit: nil).changeToken
            let refused = try await container.modifyRecords(
                saving: [makeRecord("a"), makeRecord("b", fields: ["n": .string("x")])],
                deleting: [makeRecord("z").recordID])
            #expect(refused.saveResults[makeRecord("a").recordID]?.cloudCode == .serverRecordChanged)
            #expect(refused.deleteResults[makeRecord("z").recordID]?.cloudCode != nil)
            #expect(try await container.databaseChanges(since: nil, resultsLimit: nil).changeToken == before)
            let next = try await saveAll([makeRecord("c")], to: container)[0]
            let sequence = { (record: Record) in record.recordChangeTag!.split(separator: "-").last! }
            #expect(
                Int(sequence(next), radix: 36)! == Int(sequence(first), radix: 36)! + 1,
                "the refused request spent no sequence numbers")
        }
    }
}
