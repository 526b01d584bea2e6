import Testing

@testable import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ContainerConformance {
    /// The container checks the records of a request against their type's schema once per shape (keys and value
    /// types): whatever it remembers between records must never let a record through that checking it alone refuses.
    @Suite("Records of one shape")
    struct Shapes {
        @Test(
            "in one request, a record like the ones before but for a value's type, or its type's name, is refused",
            arguments: Backend.allCases)
        func sameKeysOtherTypes(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let badType = Record(
                recordType: "9Note", recordID: RecordID(uncheckedName: "badType", zoneID: syncZone), systemFields: nil)
            let records = [
                makeRecord("a", fields: ["mood": .int64(1), "note": .string("x")]),
                makeRecord("b", fields: ["mood": .int64(2), "note": .string("y")]),
                makeRecord("c", fields: ["mood": .string("three"), "note": .string("z")]),
                makeRecord("d", fields: ["mood": .int64(4), "note": .int64(5)]),
                makeRecord("e", fields: ["mood": .int64(5), "note": .string("w"), "extra": .bool(true)]),
                makeRecord("f", fields: ["mood": .int64(6), "note": .string("v")]),
                badType,
                makeRecord("g", fields: ["mood": .double(.nan), "note": .string("u")]),
                makeRecord("h", type: "Other", fields: ["mood": .string("fine here")]),
            ]
            let result = try await container.modifyRecords(
                saving: records, deleting: [], savePolicy: .ifServerRecordUnchanged, atomically: false)
            let codes = records.map { result.saveResults[$0.recordID]?.cloudCode }
            #expect(
                codes == [
                    nil, nil, .invalidArguments, .invalidArguments, nil, nil, .invalidArguments,
                    .invalidArguments, nil,
                ])
        }

        @Test(
            "a field added in a zone whose batch failed is not known to the next zone of the request",
            arguments: Backend.allCases)
        func shapeForgottenWithRolledBackZone(backend: Backend) async throws {
            let container = ContainerHarness(backend).device("alice").container
            let otherZone = try ZoneID("Other")
            _ = try await container.saveZones([RecordZone(zoneID: syncZone), RecordZone(zoneID: otherZone)])
            try await saveAll([makeRecord("exists")], to: container)
            // Zone one adds field `n` as an integer, twice (the second record has a shape the schema now knows),
            // then fails on a conflict: its batch is rolled back, and `n` with it.
            let result = try await container.modifyRecords(
                saving: [
                    makeRecord("x1", fields: ["n": .int64(1)]), makeRecord("x2", fields: ["n": .int64(2)]),
                    makeRecord("exists"), makeRecord("y", zone: otherZone, fields: ["n": .int64(3)]),
                ],
                deleting: [])
            #expect(result.saveResults[makeRecord("x2").recordID]?.cloudCode == .batchRequestFailed)
            #expect(result.saveResults[makeRecord("y", zone: otherZone).recordID]?.cloudCode == nil)
            // `y` fixed `n` as an integer in its own right, so a string is refused.
            let later = makeRecord("z", zone: otherZone, fields: ["n": .string("no")])
            let refused = try await container.modifyRecords(saving: [later], deleting: [])
            #expect(refused.saveResults[later.recordID]?.cloudCode == .invalidArguments)
        }

        @Test("change tags are the database's prefix and the sequence in base 36")
        func changeTagText() {
            for sequence: Int64 in [0, 1, 9, 10, 35, 36, 1295, 1296, 46_655, 123_456_789, Int64.max, -1, -36] {
                #expect(
                    PrivateDatabase<MemoryDatabaseStorage>.changeTag(databaseID: "0123456789abcdef", sequence: sequence)
                        == "01234567-" + String(sequence, radix: 36))
            }
            #expect(PrivateDatabase<MemoryDatabaseStorage>.changeTag(databaseID: "abc", sequence: 71) == "abc-1z")
        }
    }
}
