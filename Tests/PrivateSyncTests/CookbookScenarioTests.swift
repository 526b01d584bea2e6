import PrivateSyncTesting
import Testing

/// docs/cookbook.md's scenarios, through `TestWorld`: each asserts what its transcript shows (the transcripts run in
/// `CLITests/CookbookTests`). Every test starts from the page's setup: phone and tablet on alice, c1 on both.
@Suite("Cookbook: the standard sync scenarios, through TestWorld")
struct CookbookScenarioTests {
    /// The page's setup: a world, phone and tablet on alice with sync on, and c1 (mood 1) synced to both; then, for
    /// each n `written`, a check-in cn with mood n added on the phone and not synced.
    private func setUp(written: Int64...) async throws -> (TestWorld, LaunchedApp, LaunchedApp) {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        try phone.add("CheckIn", name: "c1", fields: checkIn(1))
        await phone.sync()
        await tablet.sync()
        for mood in written { try phone.add("CheckIn", name: "c\(mood)", fields: checkIn(mood)) }
        return (world, phone, tablet)
    }

    /// The page's setup, then c1 edited on both devices a second apart, neither synced: the phone first, or the
    /// tablet first when `tabletFirst`.
    private func setUpWithConcurrentEdits(
        phone phoneEdit: [String: FieldValue?], tablet tabletEdit: [String: FieldValue?], tabletFirst: Bool = false
    ) async throws -> (TestWorld, LaunchedApp, LaunchedApp) {
        let (world, phone, tablet) = try await setUp()
        let (first, second) =
            tabletFirst ? ((tablet, tabletEdit), (phone, phoneEdit)) : ((phone, phoneEdit), (tablet, tabletEdit))
        try first.0.edit("c1", setting: first.1)
        world.clock.advance(by: 1)
        try second.0.edit("c1", setting: second.1)
        return (world, phone, tablet)
    }

    private func checkIn(_ mood: Int64) -> [String: FieldValue] {
        ["mood": .int64(mood), "date": .date(Date(timeIntervalSinceReferenceDate: 817_603_200))]
    }

    private func mood(_ app: LaunchedApp, _ name: String) throws -> FieldValue? {
        try app.find(name)?.record.fields["mood"]
    }

    private func names(_ world: TestWorld, account: String = "alice") throws -> [String] {
        try world.containerRecords(account: account).map(\.recordID.recordName).sorted()
    }

    /// Whether every device agrees with alice's container (differences a pending change explains allowed).
    private func converged(_ world: TestWorld) throws -> Bool {
        try world.world.convergenceAudit(accounts: [AccountID("alice")]).allSatisfy(\.isConverged)
    }

    private func modifies(_ report: SyncReport?) -> [ContainerRequest] {
        (report?.requests ?? []).filter { $0.operation == .modifyRecords }
    }

    // MARK: Conflicts

    @Test("1. the winner of a conflict saves first: the loser's later fetch drops its edit")
    func conflictWinnerSavesFirst() async throws {
        let (world, phone, tablet) = try await setUpWithConcurrentEdits(
            phone: ["mood": .int64(2)], tablet: ["mood": .int64(3)])
        await tablet.sync()
        let report = try #require(await phone.sync())
        #expect(report.sentSaves == 0)
        #expect(report.conflictsResolved == 1)
        #expect(try mood(phone, "c1") == .int64(3))
        #expect(try converged(world))
    }

    @Test("2. the winner of a conflict saves last: its save meets the conflict, and its value stays")
    func conflictWinnerSavesLast() async throws {
        let (world, phone, tablet) = try await setUpWithConcurrentEdits(
            phone: ["mood": .int64(2)], tablet: ["mood": .int64(3)])
        #expect(await phone.sync()?.sentSaves == 1)
        let report = try #require(await tablet.sync())
        #expect(report.sentSaves == 1)
        #expect(report.conflictsResolved == 1)
        await phone.sync()
        #expect(try mood(phone, "c1") == .int64(3))
        #expect(try mood(tablet, "c1") == .int64(3))
        #expect(try converged(world))
    }

    @Test("3. two devices edit different fields: both edits are kept everywhere")
    func differentFieldsBothKept() async throws {
        let (_, phone, tablet) = try await setUpWithConcurrentEdits(
            phone: ["mood": .int64(4)], tablet: ["note": .string("slept well")])
        await phone.sync()
        await tablet.sync()
        await phone.sync()
        for app in [phone, tablet] {
            let fields = try #require(try app.find("c1")).record.fields
            #expect(fields["mood"] == .int64(4))
            #expect(fields["note"] == .string("slept well"))
        }
    }

    @Test("4. the same field: the later edit wins, seen between fetching and sending")
    func sameFieldLaterEditWinsSeenHalfway() async throws {
        let (_, phone, tablet) = try await setUpWithConcurrentEdits(
            phone: ["mood": .int64(5)], tablet: ["mood": .int64(2)], tabletFirst: true)
        await tablet.sync()
        let fetched = try #require(await phone.fetchChanges())
        #expect(fetched.conflictsResolved == 1)
        #expect(fetched.sentSaves == 0)
        #expect(try mood(phone, "c1") == .int64(5))
        #expect(try phone.status().pendingChanges == 1)
        #expect(await phone.sendChanges()?.sentSaves == 1)
        await tablet.sync()
        #expect(try mood(tablet, "c1") == .int64(5))
    }

    @Test("5. edit against delete: the delete wins on every device and in the container")
    func deleteWinsOverEdit() async throws {
        let (world, phone, tablet) = try await setUp()
        try phone.delete("c1")
        try tablet.edit("c1", setting: ["mood": .int64(5)])
        #expect(await phone.sync()?.sentDeletes == 1)
        let report = try #require(await tablet.sync())
        #expect(report.sentSaves == 0)
        #expect(report.fetchedDeletions == 1)
        #expect(try tablet.find("c1") == nil)
        #expect(try names(world).isEmpty)
        #expect(try converged(world))
    }

    @Test("6. a delete of a record already gone sends nothing; a name the device lacks is refused")
    func deleteOfAnUnknownRecord() async throws {
        let (world, phone, _) = try await setUp()
        try await world.cloud(account: "alice").delete("c1")
        try phone.delete("c1")
        let report = try #require(await phone.sync())
        #expect(modifies(report).isEmpty)
        #expect(report.fetchedDeletions == 1)
        #expect(try phone.status().pendingChanges == 0)
        #expect(throws: StoreError.self) { try phone.delete("nothing-here") }
    }

    // MARK: Accounts

    @Test("7. sign-out keeps the data and pauses; signing back in uploads what was written meanwhile")
    func signOutKeepsDataAndSignInUploads() async throws {
        let (world, phone, _) = try await setUp()
        try world.device("phone").signOut()
        try phone.add("CheckIn", name: "c2", fields: checkIn(2))
        await phone.sync()
        #expect(try phone.status().state == .paused(.noAccount))
        #expect(try phone.stores.userCreated.count() == 2)
        try world.device("phone").signIn(AccountID("alice"))
        #expect(await phone.sync()?.sentSaves == 1)
        #expect(try names(world) == ["c1", "c2"])
    }

    @Test("8. an account switch pauses; start-fresh keeps the old records apart and syncs with the new account")
    func accountSwitchThenStartFresh() async throws {
        let (world, phone, _) = try await setUp()
        try world.device("phone").signIn(AccountID("bob"))
        await phone.sync()
        #expect(try phone.status().state == .paused(.accountChanged))
        #expect(try phone.startFreshForSignedInAccount().records == 1)
        try phone.add("CheckIn", name: "b1", fields: checkIn(3))
        #expect(await phone.sync()?.sentSaves == 1)
        #expect(try names(world, account: "bob") == ["b1"])
        #expect(try names(world, account: "alice") == ["c1"])
    }

    @Test("9. the user deletes the app's iCloud data: a pause, and an upload only after sync off and on")
    func userDeletedDataThenConsent() async throws {
        let (world, phone, _) = try await setUp()
        try world.inject(.userDeletedZone, device: "phone")
        await phone.sync()
        #expect(try phone.status().state == .paused(.userDeletedZone))
        #expect(try names(world).isEmpty)
        #expect(try phone.find("c1") != nil)
        let consented = try phone.setSyncEnabled(false).setSyncEnabled(true)
        #expect(await consented.sync()?.sentSaves == 1)
        #expect(try names(world) == ["c1"])
    }

    // MARK: Batches and faults

    @Test("10. a batch over 400 goes up as requests of 400 and the rest")
    func batchOver400IsSplit() async throws {
        let (world, phone, tablet) = try await setUp()
        for _ in 0..<401 { try phone.add("CheckIn", fields: checkIn(2)) }
        let report = try #require(await phone.sync())
        #expect(modifies(report).map(\.items.count) == [400, 1])
        #expect(modifies(report).map(\.batchSize) == [400, 400])
        await tablet.sync()
        #expect(try tablet.stores.userCreated.count() == 402)
        #expect(try converged(world))
    }

    @Test("11. limitExceeded halves the batch, and the smaller size is kept for the next cycle")
    func limitExceededShrinksTheBatch() async throws {
        let (world, phone, _) = try await setUp(written: 2, 3)
        try world.inject(.limitExceeded)
        let report = try #require(await phone.sync())
        #expect(report.refusedRequests == 1)
        #expect(modifies(report).map(\.error) == [.limitExceeded, nil, nil])
        #expect(modifies(report).map(\.batchSize) == [400, 1, 1])
        #expect(report.sentSaves == 2)
        #expect(try phone.engineState().batchSize == 1)
        try phone.add("CheckIn", name: "c4", fields: checkIn(4))
        #expect(modifies(await phone.sync()).map(\.batchSize) == [1])
    }

    @Test("12. an expired change token: the fetch starts again from nil, and nothing is duplicated")
    func tokenExpiryFetchesFromTheStart() async throws {
        let (world, phone, tablet) = try await setUp(written: 2)
        await phone.sync()
        try world.inject(.tokenExpired, device: "tablet")
        let report = try #require(await tablet.sync())
        let fetches = report.requests.filter { $0.operation == .recordZoneChanges }
        #expect(fetches.map(\.error) == [.changeTokenExpired, nil])
        #expect(fetches.first?.fault == "token-expired")
        #expect(report.events.contains(.changeTokenExpired))
        #expect(try tablet.stores.userCreated.count() == 2)
    }

    @Test("13. zone not found: a pause that a forced sync keeps; consent uploads everything again")
    func zoneNotFoundPausesUntilConsent() async throws {
        let (world, phone, _) = try await setUp()
        try world.inject(.zoneNotFound, device: "phone")
        try phone.add("CheckIn", name: "c2", fields: checkIn(2))
        await phone.sync()
        #expect(try phone.status().state == .paused(.userDeletedZone))
        #expect(await phone.sync(force: true)?.sentSaves == 0)
        #expect(try phone.status().state == .paused(.userDeletedZone))
        let consented = try phone.setSyncEnabled(false).setSyncEnabled(true)
        #expect(await consented.sync()?.sentSaves == 2)
        #expect(try names(world) == ["c1", "c2"])
    }

    @Test("14. an encrypted-data reset is told apart from a deletion and re-uploads without asking")
    func encryptedDataResetReuploads() async throws {
        let (world, phone, tablet) = try await setUp()
        try world.inject(.encryptedDataReset, account: "alice")
        await phone.sync()
        #expect(try names(world).isEmpty)
        let report = try #require(await phone.sync(force: true))
        #expect(report.sentSaves == 1)
        #expect(report.events.contains { if case .encryptedDataReset = $0 { true } else { false } })
        #expect(try phone.status().state == .on(.upToDate))
        await tablet.sync()
        #expect(try names(world) == ["c1"])
        #expect(try converged(world))
    }

    @Test("15. a page delivered twice duplicates nothing")
    func duplicateDeliveryIsIdempotent() async throws {
        let (world, phone, tablet) = try await setUp(written: 2, 3)
        await phone.sync()
        try world.inject(.duplicateDelivery, device: "tablet")
        await tablet.sync()
        await tablet.sync()
        #expect(try tablet.stores.userCreated.count() == 3)
        #expect(try converged(world))
    }

    @Test("16. a change withheld for two fetches arrives at the third")
    func delayedDeliveryArrivesLate() async throws {
        let (world, phone, tablet) = try await setUp(written: 2)
        await phone.sync()
        try world.inject(.delayedDelivery, device: "tablet", record: "c2", count: 2)
        await tablet.sync(force: true)
        #expect(try tablet.find("c2") == nil)
        await tablet.sync(force: true)
        #expect(try tablet.find("c2") == nil)
        await tablet.sync(force: true)
        #expect(try mood(tablet, "c2") == .int64(2))
    }

    @Test("17. records of a page in reverse order give the same result")
    func reorderedPagesConverge() async throws {
        let (world, phone, tablet) = try await setUp(written: 2, 3)
        await phone.sync()
        try world.inject(.reorderedPages, device: "tablet")
        #expect(await tablet.sync()?.fetchedModifications == 2)
        #expect(try tablet.stores.userCreated.count() == 3)
        #expect(try converged(world))
    }

    // MARK: Other clients

    @Test("18. a field another build wrote survives this device's edit, in the container")
    func unknownFieldsFromAnotherClientSurvive() async throws {
        let (world, _, tablet) = try await setUp()
        var fields = checkIn(2)
        fields["legacyScore"] = .int64(7)
        try await world.cloud(account: "alice").put(type: "CheckIn", name: "c9", fields: fields)
        await tablet.sync()
        #expect(try tablet.find("c9")?.record.fields["legacyScore"] == .int64(7))
        try tablet.edit("c9", setting: ["mood": .int64(3)])
        #expect(await tablet.sync()?.sentSaves == 1)
        let saved = try #require(try world.containerRecords(account: "alice").first { $0.recordID.recordName == "c9" })
        #expect(saved.fields["legacyScore"] == .int64(7))
        #expect(saved.fields["mood"] == .int64(3))
    }

    @Test("19. another client's stale write is refused with serverRecordChanged, then lands; devices fetch it")
    func staleWriteByAnotherClient() async throws {
        let (world, phone, _) = try await setUp()
        let outcome = try await world.cloud(account: "alice").edit("c1", fields: ["mood": .int64(9)], stale: true)
        #expect(outcome.conflict?.code == .serverRecordChanged)
        #expect(outcome.record.fields["mood"] == .int64(9))
        await phone.sync()
        #expect(try mood(phone, "c1") == .int64(9))
    }

    // MARK: Volume, switches and bookkeeping

    @Test("20. 1,000 records reach a device installed afterwards, in one cycle")
    func thousandRecordsToAFreshDevice() async throws {
        let (world, phone, _) = try await setUp()
        for _ in 0..<999 { try phone.add("CheckIn", fields: checkIn(2)) }
        #expect(await phone.sync()?.sentSaves == 999)
        try world.addDevice("laptop", account: "alice", sync: true)
        let laptop = try world.launch("laptop")
        #expect(await laptop.sync()?.fetchedModifications == 1000)
        #expect(try laptop.stores.userCreated.count() == 1000)
    }

    @Test("21. with sync off a write stays on the device: no cycle runs, the container never has it")
    func syncOffKeepsWritesHome() async throws {
        let (world, phone, _) = try await setUp()
        let off = try phone.setSyncEnabled(false)
        try off.add("CheckIn", name: "c2", fields: checkIn(2))
        #expect(await off.sync() == nil)
        #expect(try off.status().state == .off)
        #expect(try names(world) == ["c1"])
    }

    @Test("22. a reset of the bookkeeping refetches, duplicates nothing and loses nothing")
    func resetBookkeepingKeepsTheData() async throws {
        let (world, phone, tablet) = try await setUp()
        try tablet.add("CheckIn", name: "t1", fields: checkIn(5))
        try tablet.resetSyncBookkeeping()
        #expect(try tablet.engineState().boundUser == nil)
        #expect(await tablet.sync()?.sentSaves == 1)
        #expect(try tablet.stores.userCreated.count() == 2)
        #expect(try names(world) == ["c1", "t1"])
        await phone.sync()
        #expect(try converged(world))
    }

    @Test("23. a half cycle moves only its half: fetch-only sends nothing, send-only fetches nothing")
    func halfCyclesMoveOnlyTheirHalf() async throws {
        let (_, phone, tablet) = try await setUp(written: 2)
        #expect(await phone.fetchChanges()?.sentSaves == 0)
        #expect(try phone.status().pendingChanges == 1)
        let sent = try #require(await phone.sendChanges())
        #expect(sent.sentSaves == 1)
        #expect(sent.requests.allSatisfy { $0.operation != .recordZoneChanges })
        #expect(await tablet.sendChanges()?.sentSaves == 0)
        #expect(await tablet.fetchChanges()?.fetchedModifications == 1)
        #expect(try mood(tablet, "c2") == .int64(2))
    }

    @Test("24. the convergence audit: a pending change explains a difference, a missing fetch does not")
    func convergenceAuditExplainsPendingChanges() async throws {
        let (world, phone, tablet) = try await setUp(written: 2)
        let before = try world.world.convergenceAudit(accounts: [AccountID("alice")])
        let phoneBefore = try #require(before.first { $0.device == "phone" })
        #expect(phoneBefore.differences.map(\.kind) == [.extra])
        #expect(phoneBefore.isConverged)
        await phone.sync()
        let after = try world.world.convergenceAudit(accounts: [AccountID("alice")])
        let tabletAfter = try #require(after.first { $0.device == "tablet" })
        #expect(tabletAfter.differences.map(\.kind) == [.missing])
        #expect(!tabletAfter.isConverged)
        await tablet.sync()
        #expect(try converged(world))
    }

    @Test("25. two devices creating the same chosen name end with one record, the later writer's values")
    func twoDevicesCreateTheSameName() async throws {
        let (world, phone, tablet) = try await setUp()
        try phone.add("CheckIn", name: "daily-2026-11-30", fields: checkIn(2))
        world.clock.advance(by: 1)
        try tablet.add("CheckIn", name: "daily-2026-11-30", fields: checkIn(4))
        await phone.sync()
        #expect(await tablet.sync()?.conflictsResolved == 1)
        await phone.sync()
        #expect(try names(world) == ["c1", "daily-2026-11-30"])
        #expect(try mood(phone, "daily-2026-11-30") == .int64(4))
        #expect(try mood(tablet, "daily-2026-11-30") == .int64(4))
        // Both keep the record's earliest creation time and its latest surviving edit: the audit finds nothing.
        #expect(try converged(world))
    }

    @Test("26. a full iCloud pauses; only a forced sync tries again, and sends")
    func quotaExceededThenForcedSync() async throws {
        let (world, phone, _) = try await setUp()
        try world.inject(.quotaExceeded)
        try phone.add("CheckIn", name: "c2", fields: checkIn(2))
        await phone.sync()
        #expect(try phone.status().state == .paused(.quotaExceeded))
        #expect(phone.engine?.nextRunDate() == nil)
        #expect(await phone.sync(force: true)?.sentSaves == 1)
        #expect(try phone.status().state == .on(.upToDate))
    }

    @Test("27. a local-only record never reaches the container")
    func localOnlyRecordsStayHome() async throws {
        let (world, phone, _) = try await setUp()
        try phone.add(
            "Baseline", name: "b1",
            fields: [
                "metric": .string("restingHeartRate"), "value": .double(58), "computedAt": .date(world.clock.now()),
                "windowDays": .int64(28),
            ])
        await phone.sync()
        #expect(try names(world) == ["c1"])
        #expect(try world.audit(accounts: ["alice"]).isClean)
    }

    @Test("28. offline: the cycle waits with a retry time; the retry sends")
    func offlineWaitsThenRetries() async throws {
        let (world, phone, _) = try await setUp()
        try world.inject(.networkUnavailable, device: "phone")
        try phone.add("CheckIn", name: "c2", fields: checkIn(2))
        let failed = try #require(await phone.sync())
        #expect(failed.outcome == .retrying(.networkUnavailable))
        #expect(
            try phone.status().state
                == .on(.waiting(reason: .offline, nextAttempt: world.clock.now().addingTimeInterval(2))))
        world.clock.advance(by: 2)
        #expect(await phone.sync()?.sentSaves == 1)
    }

    @Test("29. a partial failure aimed at one record: its batch-mates go again at once, it waits")
    func partialFailureAimedAtOneRecord() async throws {
        let (world, phone, _) = try await setUp(written: 2, 3)
        try world.inject(.partialFailure, record: "c3")
        let report = try #require(await phone.sync())
        let first = try #require(modifies(report).first)
        #expect(first.fault == "partial-failure")
        #expect(first.items.first { $0.recordName == "c3" }?.error == .serverRejectedRequest)
        #expect(first.items.first { $0.recordName == "c2" }?.error == .batchRequestFailed)
        #expect(modifies(report).dropFirst().map { $0.items.map(\.recordName) } == [["c2"]])
        #expect(try names(world) == ["c1", "c2"])
        #expect(try phone.status().pendingChanges == 1)
    }

    @Test("30. one item over quota inside a batch pauses the device, both records pending")
    func itemQuotaExceededPauses() async throws {
        let (world, phone, _) = try await setUp(written: 2, 3)
        try world.inject(.itemQuotaExceeded, record: "c2")
        let report = try #require(await phone.sync())
        #expect(modifies(report).first?.items.first { $0.recordName == "c2" }?.error == .quotaExceeded)
        #expect(try phone.status().state == .paused(.quotaExceeded))
        #expect(try phone.status().pendingChanges == 2)
    }
}
