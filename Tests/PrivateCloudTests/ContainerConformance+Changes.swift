import Testing

@testable import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ContainerConformance {
    @Suite("Change fetching")
    struct ChangeFetching {
        /// Fetches every page from `token`, returning the pages.
        static func allPages(
            _ container: any PrivateContainer, from token: ChangeToken?, limit: Int? = nil
        )
            async throws -> [RecordZoneChanges]
        {
            var pages: [RecordZoneChanges] = []
            var token = token
            repeat {
                let page = try await container.recordZoneChanges(in: syncZone, since: token, resultsLimit: limit)
                pages.append(page)
                token = page.changeToken
            } while pages.last!.moreComing
            return pages
        }

        @Test(
            "a nil token fetches everything, in pages, with moreComing on all but the last", arguments: Backend.allCases
        )
        func pagingFromNil(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            try await saveAll((0..<25).map { makeRecord("r\($0)") }, to: container)
            let pages = try await Self.allPages(container, from: nil, limit: 10)
            #expect(pages.map(\.modifications.count) == [10, 10, 5])
            #expect(pages.map(\.moreComing) == [true, true, false])
            #expect(Set(pages.flatMap(\.modifications).map(\.recordID.recordName)).count == 25)
        }

        @Test("a token returns only what changed after it, and deletions with their types", arguments: Backend.allCases)
        func incrementalChanges(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let saved = try await saveAll((0..<5).map { makeRecord("r\($0)", type: "Symptom") }, to: container)
            let token = try await Self.allPages(container, from: nil).last!.changeToken
            var edited = saved[1]
            edited["severity"] = .int64(4)
            try await saveAll([edited], to: container)
            _ = try await container.modifyRecords(saving: [], deleting: [saved[2].recordID])
            try await saveAll([makeRecord("new", type: "Symptom")], to: container)
            let page = try await container.recordZoneChanges(in: syncZone, since: token, resultsLimit: nil)
            #expect(page.modifications.map(\.recordID.recordName) == ["r1", "new"])
            #expect(page.deletions == [.init(recordID: saved[2].recordID, recordType: "Symptom")])
            #expect(!page.moreComing)
            let again = try await container.recordZoneChanges(in: syncZone, since: page.changeToken, resultsLimit: nil)
            #expect(again.modifications.isEmpty && again.deletions.isEmpty)
            #expect(again.changeToken == page.changeToken)
        }

        @Test("a record deleted and created again appears once, as it is now", arguments: Backend.allCases)
        func deleteThenRecreateAppearsOnce(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let token = try await container.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil).changeToken
            try await saveAll([makeRecord("phoenix", fields: ["life": .int64(1)])], to: container)
            _ = try await container.modifyRecords(saving: [], deleting: [makeRecord("phoenix").recordID])
            try await saveAll([makeRecord("phoenix", fields: ["life": .int64(2)])], to: container)
            let page = try await container.recordZoneChanges(in: syncZone, since: token, resultsLimit: nil)
            #expect(page.modifications.map { $0["life"] } == [.int64(2)])
            #expect(page.deletions.isEmpty)
        }

        @Test(
            "a token of another zone, another account, or an earlier incarnation of the zone has expired",
            arguments: Backend.allCases)
        func foreignTokensExpire(backend: Backend) async throws {
            let harness = ContainerHarness(backend)
            let (alice, bob) = harness.containers("alice", "bob")
            let other = try ZoneID("Other")
            _ = try await alice.saveZones([RecordZone(zoneID: syncZone), RecordZone(zoneID: other)])
            _ = try await bob.saveZones([RecordZone(zoneID: syncZone)])
            try await saveAll([makeRecord("a")], to: alice)
            let token = try await alice.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil).changeToken
            #expect(
                await cloudErrorCode {
                    _ = try await alice.recordZoneChanges(in: other, since: token, resultsLimit: nil)
                } == .changeTokenExpired)
            #expect(
                await cloudErrorCode {
                    _ = try await bob.recordZoneChanges(in: syncZone, since: token, resultsLimit: nil)
                } == .changeTokenExpired)
            try await alice.deleteZones([syncZone])
            _ = try await alice.saveZones([RecordZone(zoneID: syncZone)])
            #expect(
                await cloudErrorCode {
                    _ = try await alice.recordZoneChanges(in: syncZone, since: token, resultsLimit: nil)
                } == .changeTokenExpired)
            let garbage = ChangeToken(bytes: Array("not a token".utf8))
            #expect(
                await cloudErrorCode {
                    _ = try await alice.recordZoneChanges(in: syncZone, since: garbage, resultsLimit: nil)
                } == .invalidArguments)
        }

        @Test("a stored token keeps working after the container is reopened", arguments: Backend.allCases)
        func tokensSurviveStorage(backend: Backend) async throws {
            let harness = ContainerHarness(backend)
            let first = harness.device("alice").container
            _ = try await first.saveZones([RecordZone(zoneID: syncZone)])
            try await saveAll([makeRecord("a")], to: first)
            let stored = try await first.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil).changeToken
                .bytes
            let second = harness.device("alice").container
            try await saveAll([makeRecord("b")], to: second)
            let page = try await second.recordZoneChanges(
                in: syncZone, since: ChangeToken(bytes: stored), resultsLimit: nil)
            #expect(page.modifications.map(\.recordID.recordName) == ["b"])
        }

        @Test("the default zone cannot fetch changes", arguments: Backend.allCases)
        func defaultZoneCannotFetchChanges(backend: Backend) async {
            let container = ContainerHarness(backend).device("alice").container
            #expect(
                await cloudErrorCode {
                    _ = try await container.recordZoneChanges(in: .default, since: nil, resultsLimit: nil)
                } == .invalidArguments)
        }

        @Test("database changes report changed, deleted and purged zones", arguments: Backend.allCases)
        func databaseChanges(backend: Backend) async throws {
            let container = ContainerHarness(backend).device("alice").container
            let doomed = try ZoneID("Doomed")
            let purged = try ZoneID("Purged")
            _ = try await container.saveZones([
                RecordZone(zoneID: syncZone), RecordZone(zoneID: doomed), RecordZone(zoneID: purged),
            ])
            let first = try await container.databaseChanges(since: nil, resultsLimit: nil)
            #expect(Set(first.modifiedZoneIDs) == [syncZone, doomed, purged])
            try await saveAll([makeRecord("a", zone: .default)], to: container)
            let quiet = try await container.databaseChanges(since: first.changeToken, resultsLimit: nil)
            #expect(quiet.modifiedZoneIDs.isEmpty, "the default zone is not reported")
            try await saveAll([makeRecord("a")], to: container)
            try await container.deleteZones([doomed])
            try await container.deleteZoneFromICloudSettings(purged)
            let second = try await container.databaseChanges(since: first.changeToken, resultsLimit: nil)
            #expect(second.modifiedZoneIDs == [syncZone])
            #expect(
                second.deletions == [.init(zoneID: doomed, reason: .deleted), .init(zoneID: purged, reason: .purged)])
        }
    }
}
