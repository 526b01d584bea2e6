import Testing

@testable import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension ContainerConformance {
    @Suite("Records")
    struct Records {
        static let everyFieldType: [String: FieldValue] = [
            "text": .string("héllo \"quoted\" \\ back\nslash \u{1}\u{1F600}"),
            "count": .int64(Int64.max),
            "negative": .int64(Int64.min),
            "ratio": .double(0.1),
            "tiny": .double(.leastNonzeroMagnitude),
            "flag": .bool(true),
            "blob": .bytes(Data([0, 1, 2, 255])),
            "when": .date(Date(timeIntervalSinceReferenceDate: 786_297_600.123_456_7)),
            "link": .reference(RecordReference(recordID: makeRecord("other").recordID, action: .deleteSelf)),
            "place": .location(Location(latitude: 51.5, longitude: -0.12, altitude: 11, horizontalAccuracy: 5)),
            "tags": .list([.string("a"), .string("b")]),
            "empty": .list([]),
            "dates": .list([
                .date(Date(timeIntervalSinceReferenceDate: 1)), .date(Date(timeIntervalSinceReferenceDate: 2)),
            ]),
        ]

        @Test(
            "a saved record gets system fields and reads back with every field type intact", arguments: Backend.allCases
        )
        func roundTripsEveryFieldType(backend: Backend) async throws {
            let (harness, container) = try await ContainerHarness.withSyncZone(backend)
            let saved = try await saveAll([makeRecord("r1", fields: Self.everyFieldType)], to: container)[0]
            let system = try #require(saved.systemFields)
            #expect(system.creationDate == harness.clock.now())
            #expect(system.creatorUserRecordID == (try AccountID("alice")).userRecordID)
            #expect(saved.changedKeys.isEmpty)
            let fetched = try await harness.device("alice").container.record(for: saved.recordID)
            #expect(fetched == saved)
            #expect(fetched.fields == Self.everyFieldType)
        }

        @Test(
            "the change tag is renewed on every save; creation is kept, modification moves", arguments: Backend.allCases
        )
        func changeTagRenewedOnEverySave(backend: Backend) async throws {
            let (harness, container) = try await ContainerHarness.withSyncZone(backend)
            var record = try await saveAll([makeRecord("r", fields: ["note": .string("1")])], to: container)[0]
            let created = record.systemFields!.creationDate
            var tags = [record.recordChangeTag!]
            for round in 2...4 {
                harness.clock.advance(by: 60)
                record["note"] = .string("\(round)")
                record = try await saveAll([record], to: container)[0]
                tags.append(record.recordChangeTag!)
            }
            #expect(Set(tags).count == 4)
            #expect(record.systemFields!.creationDate == created)
            #expect(record.systemFields!.modificationDate == harness.clock.now())
        }

        @Test(
            "record names are validated as CloudKit does",
            arguments: ["", "_underscore", String(repeating: "r", count: 256), "naïve", "new\nline", "del\u{7F}"])
        func invalidRecordNamesAreRefused(name: String) {
            #expect(throws: CloudError.self) { try RecordID(recordName: name, zoneID: syncZone) }
        }

        @Test("names that bypass the initializer are still refused by the container", arguments: Backend.allCases)
        func containerRevalidatesNames(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let sneaky = Record(
                recordType: "Note", recordID: RecordID(uncheckedName: "_sneaky", zoneID: syncZone), systemFields: nil)
            #expect(
                try await saveCode(of: sneaky, to: container, policy: .allKeys, atomically: false) == .invalidArguments)
        }

        @Test(
            "record types and field keys must be identifiers",
            arguments: ["", "9lives", "_hidden", "with space", "dash-ed", String(repeating: "t", count: 256)])
        func invalidIdentifiersAreRefused(name: String) async throws {
            #expect(throws: CloudError.self) { try Record(recordType: name, recordID: makeRecord("x").recordID) }
            let container = try await ContainerHarness.containerWithSyncZone(.memory)
            var record = makeRecord("x")
            record[name] = .int64(1)
            #expect(try await saveCode(of: record, to: container) == .invalidArguments)
        }

        @Test("a record may have 256 fields, not 257", arguments: Backend.allCases)
        func fieldCountLimit(backend: Backend) async throws {
            var fields = numberedFields("f", count: 256) { Int64($0) }
            let full = makeRecord("full", type: "Wide", fields: fields)
            fields["f256"] = .int64(256)
            try await expectOverLimit(makeRecord("over", type: "Wide", fields: fields), after: full, on: backend)
        }

        @Test("a record type may gather at most 256 fields across its records", arguments: Backend.allCases)
        func fieldCountLimitPerType(backend: Backend) async throws {
            let first = makeRecord("one", type: "Grows", fields: numberedFields("a", count: 200) { _ in 1 })
            let second = makeRecord("two", type: "Grows", fields: numberedFields("b", count: 57) { _ in 1 })
            try await expectOverLimit(second, after: first, on: backend)
        }

        @Test("a record of 1 MB encoded fits; one byte more does not", arguments: Backend.allCases)
        func recordSizeLimit(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let overhead = FieldsJSON.encode(["body": .string("")]).count
            let exact = makeRecord(
                "exact", fields: ["body": .string(String(repeating: "x", count: 1_048_576 - overhead))])
            #expect(exact.encodedSize == 1_048_576)
            try await saveAll([exact], to: container)
            let over = makeRecord(
                "over", fields: ["body": .string(String(repeating: "x", count: 1_048_577 - overhead))])
            #expect(try await saveCode(of: over, to: container) == .limitExceeded)
        }

        @Test("a field keeps the type of its first value", arguments: Backend.allCases)
        func fieldTypeIsFixed(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            try await saveAll([makeRecord("a", fields: ["mood": .int64(3), "tags": .list([])])], to: container)
            let wrong = makeRecord("b", fields: ["mood": .string("three")])
            #expect(try await saveCode(of: wrong, to: container) == .invalidArguments)
            try await saveAll([makeRecord("c", fields: ["tags": .list([.string("x")])])], to: container)
            let wrongList = makeRecord("d", fields: ["tags": .list([.int64(1)])])
            #expect(try await saveCode(of: wrongList, to: container) == .invalidArguments)
        }

        @Test(
            "values CloudKit cannot store are refused",
            arguments: [
                FieldValue.double(.nan), .double(.infinity), .list([.string("a"), .int64(1)]),
                .list([.list([.int64(1)])]), .location(Location(latitude: 91, longitude: 0)),
            ])
        func invalidValuesAreRefused(value: FieldValue) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(.memory)
            let record = makeRecord("bad", fields: ["value": value])
            #expect(try await saveCode(of: record, to: container) == .invalidArguments)
        }

        @Test("a record keeps its type: saving it as another type fails", arguments: Backend.allCases)
        func recordTypeIsFixed(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            try await saveAll([makeRecord("a", type: "Note")], to: container)
            let retyped = makeRecord("a", type: "Symptom")
            #expect(
                try await saveCode(of: retyped, to: container, policy: .allKeys, atomically: false) == .invalidArguments
            )
        }

        @Test(
            "fetching a missing record gives unknownItem; a missing zone gives zoneNotFound",
            arguments: Backend.allCases)
        func fetchingMissingThings(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let missing = makeRecord("nope").recordID
            let elsewhere = makeRecord("nope", zone: try ZoneID("Nowhere")).recordID
            let results = try await container.records(for: [missing, elsewhere])
            #expect(results[missing]?.cloudCode == .unknownItem)
            #expect(results[elsewhere]?.cloudCode == .zoneNotFound)
        }
    }

    @Suite("Modify requests")
    struct ModifyRequests {
        @Test("400 items fit in one request; 401 fail whole with limitExceeded", arguments: Backend.allCases)
        func itemLimit(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let records = (0..<401).map { makeRecord("r\($0)") }
            #expect(
                await cloudErrorCode { _ = try await container.modifyRecords(saving: records, deleting: []) }
                    == .limitExceeded)
            #expect(
                try await container.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil).modifications.isEmpty
            )
            try await saveAll(Array(records.prefix(400)), to: container)
            let error = await cloudErrorCode {
                _ = try await container.modifyRecords(
                    saving: [makeRecord("extra")], deleting: records.prefix(400).map(\.recordID))
            }
            #expect(error == .limitExceeded, "saves and deletes count together")
        }

        @Test("a request over 2 MB fails whole with limitExceeded", arguments: Backend.allCases)
        func requestSizeLimit(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let big = String(repeating: "x", count: 700_000)
            let records = (0..<3).map { makeRecord("big\($0)", fields: ["body": .string(big)]) }
            #expect(
                await cloudErrorCode { _ = try await container.modifyRecords(saving: records, deleting: []) }
                    == .limitExceeded)
            try await saveAll(Array(records.prefix(2)), to: container)
        }

        @Test("naming a record twice in one request is refused", arguments: Backend.allCases)
        func duplicateItemsAreRefused(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let record = makeRecord("twice")
            #expect(
                await cloudErrorCode { _ = try await container.modifyRecords(saving: [record, record], deleting: []) }
                    == .invalidArguments)
            #expect(
                await cloudErrorCode {
                    _ = try await container.modifyRecords(saving: [record], deleting: [record.recordID])
                } == .invalidArguments)
        }

        @Test(
            "a stale change tag conflicts, carrying the server, client and ancestor records",
            arguments: Backend.allCases)
        func staleChangeTagConflicts(backend: Backend) async throws {
            let harness = ContainerHarness(backend)
            let (phone, tablet) = harness.containers("alice", "alice")
            _ = try await phone.saveZones([RecordZone(zoneID: syncZone)])
            let original = try await saveAll(
                [makeRecord("r", fields: ["note": .string("v1"), "mood": .int64(1)])], to: phone)[0]
            var onPhone = original
            onPhone["note"] = .string("phone")
            try await saveAll([onPhone], to: phone)
            var onTablet = original
            onTablet["mood"] = .int64(5)
            let result = try await tablet.modifyRecords(saving: [onTablet], deleting: [])
            guard case .failure(let error)? = result.saveResults[original.recordID] else {
                Issue.record("the stale save succeeded")
                return
            }
            #expect(error.code == .serverRecordChanged)
            #expect(error.serverRecord?["note"] == .string("phone"))
            #expect(error.clientRecord?["mood"] == .int64(5))
            #expect(error.ancestorRecord?["mood"] == .int64(1))
            #expect(error.ancestorRecord?["note"] == .string("v1"))
            #expect(result.partialFailure?.code == .partialFailure)
            // Merging into the server record (the only one with the current tag) succeeds.
            var merged = try #require(error.serverRecord)
            merged["mood"] = .int64(5)
            let final = try await saveAll([merged], to: tablet)[0]
            #expect(final["note"] == .string("phone") && final["mood"] == .int64(5))
        }

        @Test("creating a record that exists conflicts", arguments: Backend.allCases)
        func createOfExistingRecordConflicts(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            try await saveAll([makeRecord("r", fields: ["note": .string("first")])], to: container)
            let result = try await container.modifyRecords(
                saving: [makeRecord("r", fields: ["note": .string("second")])], deleting: [])
            guard case .failure(let error)? = result.saveResults[makeRecord("r").recordID] else {
                Issue.record("the second create succeeded")
                return
            }
            #expect(error.code == .serverRecordChanged)
            #expect(error.serverRecord?["note"] == .string("first"))
            #expect(error.ancestorRecord == nil)
        }

        @Test("saving with the tag of a record deleted since gives unknownItem", arguments: Backend.allCases)
        func saveOfDeletedRecordIsUnknown(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            var record = try await saveAll([makeRecord("r")], to: container)[0]
            _ = try await container.modifyRecords(saving: [], deleting: [record.recordID])
            record["note"] = .string("edit after delete")
            #expect(try await saveCode(of: record, to: container) == .unknownItem)
        }

        @Test(
            "only the changed keys go onto the server record: by the changedKeys policy, and by a tagged upload of them",
            arguments: Backend.allCases, [true, false])
        func changedKeysOnly(backend: Backend, byPolicy: Bool) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let original = try await saveAll(
                [makeRecord("r", fields: ["a": .int64(1), "b": .int64(1), "c": .int64(1)])], to: container)[0]
            var edited: Record
            if byPolicy {
                var first = original
                first["a"] = .int64(2)
                try await saveAll([first], to: container)
                edited = original
            } else {
                // Made from cached system fields, as a CKRecord from `init(coder:)`: no fields, the current tag.
                edited = Record(recordType: "Note", recordID: original.recordID, systemFields: original.systemFields)
                edited.uploadsChangedKeysOnly = true
                edited["a"] = .int64(2)
            }
            edited["b"] = .int64(3)
            edited["c"] = nil
            let saved = try await saveAll(
                [edited], to: container, policy: byPolicy ? .changedKeys : .ifServerRecordUnchanged)[0]
            #expect(saved.fields == ["a": .int64(2), "b": .int64(3)])
            if !byPolicy {
                // The same record again carries a stale tag now: a conflict, as ever.
                #expect(try await saveCode(of: edited, to: container) == .serverRecordChanged)
            }
        }

        @Test("allKeys replaces the server record, without comparing tags", arguments: Backend.allCases)
        func allKeysPolicy(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let original = try await saveAll(
                [makeRecord("r", fields: ["a": .int64(1), "b": .int64(1)])], to: container)[0]
            var first = original
            first["a"] = .int64(2)
            try await saveAll([first], to: container)
            let replacement = makeRecord("r", fields: ["c": .int64(9)])
            let saved = try await saveAll([replacement], to: container, policy: .allKeys)[0]
            #expect(saved.fields == ["c": .int64(9)])
            #expect(saved.systemFields?.creationDate == original.systemFields?.creationDate)
        }

        @Test("in a custom zone one failing item rolls back its whole zone", arguments: Backend.allCases)
        func atomicZoneRollsBack(backend: Backend) async throws {
            let container = ContainerHarness(backend).device("alice").container
            let otherZone = try ZoneID("Other")
            _ = try await container.saveZones([RecordZone(zoneID: syncZone), RecordZone(zoneID: otherZone)])
            try await saveAll([makeRecord("exists"), makeRecord("doomed")], to: container)
            let result = try await container.modifyRecords(
                saving: [
                    makeRecord("new1"), makeRecord("exists"), makeRecord("new2"),
                    makeRecord("elsewhere", zone: otherZone),
                ],
                deleting: [makeRecord("doomed").recordID])
            #expect(result.saveResults[makeRecord("exists").recordID]?.cloudCode == .serverRecordChanged)
            #expect(result.saveResults[makeRecord("new1").recordID]?.cloudCode == .batchRequestFailed)
            #expect(result.saveResults[makeRecord("new2").recordID]?.cloudCode == .batchRequestFailed)
            #expect(result.deleteResults[makeRecord("doomed").recordID]?.cloudCode == .batchRequestFailed)
            #expect(
                result.saveResults[makeRecord("elsewhere", zone: otherZone).recordID]?.cloudCode == nil,
                "other zones commit on their own")
            let partial = try #require(result.partialFailure)
            #expect(partial.code == .partialFailure && partial.partialErrors.count == 4)
            let changes = try await container.recordZoneChanges(in: syncZone, since: nil, resultsLimit: nil)
            #expect(Set(changes.modifications.map(\.recordID.recordName)) == ["exists", "doomed"])
            #expect(changes.deletions.isEmpty)
        }

        @Test("a non-atomic request applies every item that can be applied", arguments: Backend.allCases)
        func nonAtomicRequestAppliesTheRest(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            try await saveAll([makeRecord("exists")], to: container)
            let result = try await container.modifyRecords(
                saving: [makeRecord("new1"), makeRecord("exists")], deleting: [makeRecord("missing").recordID],
                savePolicy: .ifServerRecordUnchanged, atomically: false)
            #expect(result.saveResults[makeRecord("new1").recordID]?.cloudCode == nil)
            #expect(result.saveResults[makeRecord("exists").recordID]?.cloudCode == .serverRecordChanged)
            #expect(result.deleteResults[makeRecord("missing").recordID]?.cloudCode == .unknownItem)
            #expect(try await container.record(for: makeRecord("new1").recordID).recordType == "Note")
        }

        @Test("the default zone never commits atomically, even when asked", arguments: Backend.allCases)
        func defaultZoneIsNotAtomic(backend: Backend) async throws {
            let container = ContainerHarness(backend).device("alice").container
            try await saveAll([makeRecord("exists", zone: .default)], to: container)
            let result = try await container.modifyRecords(
                saving: [makeRecord("new", zone: .default), makeRecord("exists", zone: .default)], deleting: [])
            #expect(result.saveResults[makeRecord("new", zone: .default).recordID]?.cloudCode == nil)
            #expect(
                result.saveResults[makeRecord("exists", zone: .default).recordID]?.cloudCode == .serverRecordChanged)
        }

        @Test("deleting a record that does not exist gives unknownItem", arguments: Backend.allCases)
        func deletingMissingRecord(backend: Backend) async throws {
            let container = try await ContainerHarness.containerWithSyncZone(backend)
            let result = try await container.modifyRecords(saving: [], deleting: [makeRecord("ghost").recordID])
            #expect(result.deleteResults[makeRecord("ghost").recordID]?.cloudCode == .unknownItem)
        }

        @Test("records saved into a missing zone fail with zoneNotFound", arguments: Backend.allCases)
        func savingIntoMissingZone(backend: Backend) async throws {
            let container = ContainerHarness(backend).device("alice").container
            #expect(try await saveCode(of: makeRecord("a"), to: container) == .zoneNotFound)
        }
    }
}

/// Saves `accepted` to a new container on `backend`, then expects the save of `refused` to be refused as over a
/// limit.
private func expectOverLimit(_ refused: Record, after accepted: Record, on backend: Backend) async throws {
    let container = try await ContainerHarness.containerWithSyncZone(backend)
    try await saveAll([accepted], to: container)
    #expect(try await saveCode(of: refused, to: container) == .limitExceeded)
}

/// `count` int64 fields named `prefix` then 0, 1, …, each holding `value` of its number.
private func numberedFields(_ prefix: String, count: Int, value: (Int) -> Int64) -> [String: FieldValue] {
    Dictionary(uniqueKeysWithValues: (0..<count).map { ("\(prefix)\($0)", FieldValue.int64(value($0))) })
}
