import PrivateSyncTesting
import Synchronization
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The behaviours of issue 10: what the user does while a cycle is in flight, and what a cycle's outcome, counts,
/// times and status say. Each test failed on the engine before the fix it pins.
@Suite("Sync engine: user actions during a cycle, and honest outcomes")
struct SyncEngineInterleavingTests {
    static func names(in world: TestWorld, _ account: String) throws -> Set<String> {
        Set(try world.containerRecords(account: account).map(\.recordID.recordName))
    }

    @Test("a record written after sync off is never uploaded by the cycle already in flight")
    func writesAfterSyncOffStayHome() async throws {
        let (world, phone, container) = try InterferingContainer.launchPhone()
        let before = try phone.checkIn(1)
        let written = Mutex<[String]>([])
        container.beforeModify.withLock {
            $0 = {
                // The settings toggle, then three writes, while the first request is on its way.
                guard let off = try? phone.setSyncEnabled(false) else { return }
                for mood in 2...4 {
                    if let record = try? off.checkIn(Int64(mood)) { written.withLock { $0.append(record.name) } }
                }
            }
        }
        let report = try #require(await phone.sync())
        let afterOff = written.withLock { $0 }
        #expect(afterOff.count == 3)
        let cloud = try Self.names(in: world, "alice")
        #expect(cloud.contains(before.name), "the batch read before the switch went off may go")
        #expect(cloud.isDisjoint(with: afterOff), "nothing written after sync off leaves the device")
        #expect(report.stoppedBecause == .syncTurnedOff)
    }

    @Test("a record written after sign-out is never uploaded by the cycle already in flight")
    func writesAfterSignOutStayHome() async throws {
        let (world, phone, container) = try InterferingContainer.launchPhone()
        let device = phone.device
        try phone.checkIn(1)
        let written = Mutex<String?>(nil)
        container.beforeModify.withLock {
            $0 = {
                try? device.signOut()
                written.withLock { $0 = try? phone.checkIn(2).name }
            }
        }
        await phone.sync()
        let name = try #require(written.withLock { $0 })
        #expect(try !Self.names(in: world, "alice").contains(name))
    }

    @Test("starting afresh while a cycle is fetching leaves none of the previous account's records in the store")
    func startFreshRacingAFetch() async throws {
        let world = try makeWorld("phone", "tablet")
        let (phone, container) = try InterferingContainer.launch(world, "phone")
        let tablet = try world.launch("tablet")
        let device = phone.device
        await phone.sync()
        let alices = try (1...5).map { try tablet.checkIn(Int64($0)).name }
        await tablet.sync()
        container.afterZoneFetch.withLock {
            $0 = {
                // The page of alice's records is on its way back when the user switches account and starts afresh.
                try? device.signIn(AccountID("bob"))
                _ = try? phone.startFreshForSignedInAccount()
            }
        }
        let report = try #require(await phone.sync())
        #expect(report.stoppedBecause == .storeStartedAfresh)
        #expect(phone.userRecordNames.isDisjoint(with: alices))
        let alice = try AccountID("alice").userRecordID
        #expect(try phone.stores.userCreated.records().allSatisfy { $0.origin != alice })
    }

    @Test("a cycle a start afresh overtook records its outcome in no store: the fresh one still asks to run")
    func overtakenCycleRecordsNothingInTheFreshStore() async throws {
        let world = try makeWorld("phone")
        let (phone, container) = try InterferingContainer.launch(world, "phone")
        let device = phone.device
        await phone.sync()
        _ = try phone.checkIn(1)
        container.beforeModify.withLock {
            $0 = {
                // The cycle checked the user and read its batch; the user switches account and starts afresh before
                // the batch goes out, so the request, made for alice, is cancelled (the account changed).
                try? device.signIn(AccountID("bob"))
                _ = try? phone.startFreshForSignedInAccount()
            }
        }
        let report = try #require(await phone.sync())
        #expect(report.outcome == .paused(.accountChanged))
        // Not "the account changed" in the fresh store, bound to no one: that outcome kept it from ever asking to run
        // (seed 225 of 300, invariant 13).
        #expect(try phone.engine?.state().lastOutcome == nil)
        let bobs = try phone.checkIn(2)
        #expect(phone.engine?.nextRunDate() == world.clock(of: "phone").now())
        #expect(await phone.sync()?.outcome == .succeeded)
        #expect(try world.containerRecords(account: "bob").map(\.recordID.recordName) == [bobs.name])
    }

    @Test("a conflict inside an atomic batch ends the cycle as succeeded when everything was sent in the end")
    func batchConflictIsNotAFailure() async throws {
        let (_, phone, _, _) = try await phoneEditWaitingBehindTabletsEdit()
        try phone.checkIn(4)
        // Send without fetching first, so the upload itself meets the conflict inside its atomic batch.
        let report = try #require(await phone.engine?.sendChanges(force: true))
        #expect(report.outcome == .succeeded)
        #expect(report.conflictsResolved == 1)
        #expect(try phone.status().state == .on(.upToDate))
        #expect(phone.engine?.nextRunDate() == nil)
    }

    @Test("signing in after a launch without an account starts sync without a relaunch")
    func signingInStartsSync() async throws {
        let (world, phone) = try launchedPhone(account: nil)
        let device = phone.device
        #expect(try phone.status().pauseReason == .noAccount)
        let record = try phone.checkIn(1)
        try device.signIn(AccountID("alice"))
        // What the CLI's next command sees: the status of the reconfigured app, then the reconfigured app itself.
        let sequence = LaunchSequence(device: device, environment: world.world.environment(for: device))
        #expect(try sequence.status().pauseReason == nil, "the status never names a cause that no longer holds")
        let resumed = try sequence.resume()
        #expect(resumed.engine != nil)
        await resumed.sync()
        #expect(try Self.names(in: world, "alice").contains(record.name))
        // In process, the app reacts as one observing CKAccountChanged does.
        try device.signOut()
        let signedOut = try world.launch("phone")
        try device.signIn(AccountID("alice"))
        #expect(try signedOut.reactToAccountChange().engine != nil)
    }

    @Test("a sync on made before the user deleted the app's iCloud data is not consent to upload it again")
    func earlierToggleIsNoConsent() async throws {
        let (world, synced, _) = try await syncedPhone(checkIns: 1)
        var phone = synced
        phone = try phone.setSyncEnabled(false).setSyncEnabled(true)
        try world.inject(.userDeletedZone)
        let report = try #require(await phone.sync())
        #expect(report.outcome == .paused(.userDeletedZone))
        #expect(try world.containerRecords(account: "alice").isEmpty, "nothing was put back behind the user's back")
        // A toggle made after the device learned of the deletion is consent.
        phone = try phone.setSyncEnabled(false).setSyncEnabled(true)
        await phone.sync()
        #expect(try world.containerRecords(account: "alice").count == 1)
    }

    @Test(
        "turning sync on ends a pause only the user could end: the status shows it at once, and after a crash in the next cycle",
        arguments: [FaultKind.userDeletedZone, .quotaExceeded])
    func consentEndsThePauseAtOnce(fault: FaultKind) async throws {
        let (world, synced, _) = try await syncedPhone(checkIns: 1)
        var phone = synced
        try world.inject(fault)
        try phone.checkIn(2)
        let paused = try #require(await phone.sync())
        guard case .paused(let reason)? = paused.outcome else {
            Issue.record("the fault did not pause sync: \(String(describing: paused.outcome))")
            return
        }
        #expect(try phone.status().state == .paused(reason))
        phone = try phone.setSyncEnabled(false).setSyncEnabled(true)
        let status = try phone.status()
        #expect(status.pauseReason == nil, "the user ended the pause; the status must not show it until the next cycle")
        #expect(status.pendingChanges >= 1)
        // The app dies before the next cycle records its outcome: the relaunched app still shows no pause.
        let relaunched = try world.launch("phone")
        #expect(try relaunched.status().pauseReason == nil)
    }

    @Test("every device shows a record's own creation and modification times, however late it fetched it")
    func recordTimesAgree() async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        let created = try phone.checkIn(1)
        world.clock.advance(by: 86_400)
        let edited = try phone.edit(created.name, setting: ["note": .string("later")])
        world.clock.advance(by: 7 * 86_400)
        await syncUntilQuiet([phone, tablet])
        let there = try #require(try tablet.stores.userCreated.record(named: created.name))
        let here = try #require(try phone.stores.userCreated.record(named: created.name))
        #expect(there.createdAt == created.createdAt)
        #expect(there.modifiedAt == edited.modifiedAt)
        #expect(here.createdAt == there.createdAt && here.modifiedAt == there.modifiedAt)
    }

    @Test("a server whose request limit stays low costs one series of refused requests, not one per round")
    func reducedBatchSizeIsKept() async throws {
        let (world, phone, container) = try InterferingContainer.launchPhone(itemLimit: 5)
        for mood in 1...20 { try phone.checkIn(Int64(mood)) }
        let first = try #require(await phone.sync())
        #expect(first.outcome == .succeeded)
        // 20 → 10 → 5: two refusals, then every request fits.
        #expect(container.refused.withLock { $0 } == 2)
        #expect(first.refusedRequests == 2)
        for mood in 21...40 { try phone.checkIn(Int64(mood)) }
        let second = try #require(await phone.sync())
        #expect(second.refusedRequests == 0, "the reduced size is kept with the engine's state")
        #expect(try world.containerRecords(account: "alice").count == 40)
    }

    @Test("two accepted edits whose merge exceeds the record limit converge on the server's side, reported")
    func oversizedMergeConverges() async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        let events = Mutex<[SyncEvent]>([])
        // A body that fits with a short note, but not with two long fields at once.
        let body = String(repeating: "a", count: 1_048_576 - 1_100)
        let journal = try phone.add("Journal", fields: ["date": .date(world.clock.now()), "body": .string(body)])
        await syncUntilQuiet([phone, tablet])
        world.clock.advance(by: 1)
        try phone.edit(journal.name, setting: ["note": .string(String(repeating: "p", count: 600))])
        world.clock.advance(by: 1)
        try tablet.edit(journal.name, setting: ["body": .string(body + String(repeating: "t", count: 600))])
        for _ in 0..<4 {
            for app in [tablet, phone] {
                if let report = await app.sync(force: true) { events.withLock { $0 += report.events } }
            }
        }
        let onPhone = try #require(try phone.stores.userCreated.record(named: journal.name))
        let onTablet = try #require(try tablet.stores.userCreated.record(named: journal.name))
        #expect(onPhone.fields == onTablet.fields, "the devices converge")
        #expect(try phone.stores.userCreated.pendingChangeCount() == 0)
        #expect(try tablet.stores.userCreated.pendingChangeCount() == 0)
        #expect(events.withLock { $0 }.contains(.mergeTooLarge(recordName: journal.name)), "and the user is told")
    }

    @Test("a retry due on another day shows its date, not only a time of day")
    func retryOnAnotherDayShowsItsDate() async throws {
        let (world, phone) = try launchedPhone()
        try phone.checkIn(1)
        try world.inject(.rateLimited, retryAfter: 2 * 86_400)
        await phone.sync()
        let copy = try phone.status().copy
        #expect(copy.contains("on 2026-01-03 at "), "\(copy)")
    }

    @Test("a same-field conflict resolved at fetch in the server's favour is counted")
    func everyConflictIsCounted() async throws {
        let (_, phone, tablet, shared) = try await twoDevicesEditingOneRecord(
            phone: ["note": .string("earlier")], tablet: ["note": .string("later")])
        await tablet.sync()
        let report = try #require(await phone.sync())
        #expect(report.conflictsResolved == 1)
        #expect(report.events.contains(.conflictResolved(recordName: shared)))
    }

    /// A policy docs/engine.md invites: on a conflict, the server's version wins whole.
    struct ServerWins: ConflictResolver {
        func resolve(local: StoredRecord, server: StoredRecord) -> StoredRecord { server }
    }

    @Test(
        "an edit made after a sync is never reverted by the echo of the device's own save",
        arguments: [0.0, 5.0], [true, false])
    func ownEchoNeverRevertsAnEdit(secondsBetween: Double, serverWins: Bool) async throws {
        let world = try TestWorld()
        let device = try world.addDevice("phone", account: "alice", sync: true)
        var environment = world.world.environment(for: device)
        if serverWins { environment.resolver = ServerWins() }
        let phone = try LaunchSequence(device: device, environment: environment).run()
        let record = try phone.checkIn(1, note: "first")
        await phone.sync()
        world.clock.advance(by: secondsBetween)
        try phone.edit(record.name, setting: ["note": .string("second")])
        await phone.sync()
        #expect(try phone.stores.userCreated.record(named: record.name)?.fields["note"] == .string("second"))
        let cloud = try world.containerRecords(account: "alice").first { $0.recordID.recordName == record.name }
        #expect(cloud?["note"] == .string("second"))
    }

    @Test("an edit made on a clock that lags behind the field's version still supersedes it")
    func editsSupersedeWhatTheyReplaced() throws {
        let previous = FieldVersion(time: 1_000, device: "tablet")
        let edit = FieldVersion.edit(at: 900, by: "phone", superseding: previous)
        #expect(edit > previous)
        #expect(FieldVersion.edit(at: 1_100, by: "phone", superseding: previous).time == 1_100)
    }
}

/// Records kept apart in an archive come back whole when the device starts afresh for their account again.
@Suite("Sync engine: archives resume their account")
struct SyncEngineArchiveTests {
    @Test("restored records are never reconciled away: the device resumes the account's sync and pauses for a deletion")
    func restoredRecordsResumeTheirAccount() async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        let phoneDevice = phone.device
        let names = try (1...3).map { try phone.checkIn(Int64($0)).name }
        await syncUntilQuiet([phone, tablet])
        // The phone switches to bob and keeps alice's records apart.
        try phoneDevice.signIn(AccountID("bob"))
        try phone.startFreshForSignedInAccount()
        await phone.sync()
        // Meanwhile the user deletes the app's data from alice's iCloud.
        try world.inject(.userDeletedZone, account: "alice")
        await tablet.sync(force: true)
        // Back to alice: starting afresh brings her records back, and the device resumes where it left her.
        try phoneDevice.signIn(AccountID("alice"))
        try phone.startFreshForSignedInAccount()
        await phone.sync(force: true)
        #expect(phone.userRecordNames.isSuperset(of: names), "the restored records stay on the device")
        #expect(try phone.status().pauseReason == .userDeletedZone, "the deletion is seen, and waits for consent")
        #expect(try world.containerRecords(account: "alice").isEmpty, "nothing is put back unasked")
    }
}
