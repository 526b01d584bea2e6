import PrivateSyncTesting
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Sync engine: faults")
struct SyncEngineFaultTests {
    /// A world with one syncing device holding three unsent check-ins.
    static func setUp() throws -> (TestWorld, LaunchedApp) {
        let (world, phone) = try launchedPhone()
        for mood in 1...3 { try phone.checkIn(Int64(mood)) }
        return (world, phone)
    }

    @Test(
        "transient faults keep changes pending, schedule a retry, and the retry sends everything once",
        arguments: [
            FaultKind.networkUnavailable, .networkFailure, .serviceUnavailable, .rateLimited, .zoneBusy,
            .serverResponseLost, .partialFailure,
        ])
    func transientFaultsRetry(kind: FaultKind) async throws {
        let (world, phone) = try Self.setUp()
        try world.inject(kind, retryAfter: 90)
        let failed = try #require(await phone.sync())
        guard case .retrying(let code)? = failed.outcome else {
            Issue.record("expected a retry, got \(String(describing: failed.outcome))")
            return
        }
        #expect(code == (kind == .partialFailure ? .serverRejectedRequest : kind.code))
        let status = try phone.status()
        #expect(status.isOn, "a transient failure waits; it does not pause")
        guard case .on(.waiting(_, let next?)) = status.state else {
            Issue.record("expected waiting, got \(status.state)")
            return
        }
        let expectedDelay = kind.hasRetryAfter ? 90.0 : 2.0
        #expect(next == world.clock.now().addingTimeInterval(expectedDelay))
        // A partial failure sets its one failing record aside and sends the others.
        #expect(status.pendingChanges == (kind == .partialFailure ? 1 : 3))
        let early = try #require(await phone.sync())
        #expect(!early.ran, "not due yet")
        world.clock.advance(by: expectedDelay)
        let retried = try #require(await phone.sync())
        #expect(retried.outcome == .succeeded)
        #expect(try phone.status().state == .on(.upToDate))
        #expect(try containerContents(world, "alice") == contents(phone))
        #expect(try world.containerRecords(account: "alice").count == 3)
    }

    @Test("a cycle asked for before the retry is due is skipped, saying when it is due; a forced one runs")
    func earlyCycleSaysWhenItIsDue() async throws {
        let (world, phone) = try Self.setUp()
        try world.inject(.networkUnavailable)
        _ = await phone.sync()
        let early = try #require(await phone.sync())
        guard case .notDue(let until)? = early.skippedBecause else {
            Issue.record("expected a skip until the retry, got \(String(describing: early.skippedBecause))")
            return
        }
        #expect(until == world.clock.now().addingTimeInterval(2))
        let forced = try #require(await phone.sync(force: true))
        #expect(forced.ran && forced.skippedBecause == nil)
    }

    @Test("an account that is temporarily unavailable pauses with that reason, and sync resumes on its own")
    func accountTemporarilyUnavailable() async throws {
        let (world, phone) = try Self.setUp()
        try world.inject(.accountTemporarilyUnavailable)
        let failed = try #require(await phone.sync())
        #expect(failed.outcome == .paused(.accountTemporarilyUnavailable))
        #expect(try phone.status().state == .paused(.accountTemporarilyUnavailable))
        #expect(phone.engine?.nextRunDate() != nil, "the engine will try again by itself")
        world.clock.advance(by: 3600)
        #expect(await phone.sync()?.outcome == .succeeded)
        #expect(try phone.status().state == .on(.upToDate))
    }

    @Test("consecutive failures back off exponentially, up to the cap, never below the server's retry-after")
    func backoff() async throws {
        let (world, phone) = try Self.setUp()
        try world.inject(.networkFailure, count: 12)
        var delays: [Double] = []
        for _ in 0..<12 {
            let report = try #require(await phone.sync(force: true))
            if let next = report.nextRun { delays.append(next.timeIntervalSince(world.clock.now())) }
        }
        #expect(delays == [2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900])
        #expect(RetryPolicy.standard.delay(attempt: 1, retryAfter: 300) == 300)
    }

    @Test("a full iCloud pauses sync; nothing is lost; a forced sync after space is freed resumes it")
    func quotaExceeded() async throws {
        let (world, phone) = try Self.setUp()
        try world.inject(.quotaExceeded)
        #expect(await phone.sync()?.outcome == .paused(.quotaExceeded))
        #expect(try phone.status().state == .paused(.quotaExceeded))
        #expect(try phone.status().copy == "Sync is paused: your iCloud storage is full.")
        world.clock.advance(by: 86_400)
        #expect(await phone.sync()?.ran == false, "a full iCloud is not retried behind the user's back")
        let forced = try #require(await phone.sync(force: true))
        #expect(forced.outcome == .succeeded)
        #expect(forced.events.contains(.resumed))
        #expect(try world.containerRecords(account: "alice").count == 3)
    }

    @Test("after the user deletes the app's iCloud data, sync pauses: nothing re-uploaded, nothing local deleted")
    func userDeletedZone() async throws {
        let (world, phone, tablet) = try launchedPhoneAndTablet()
        for mood in 1...3 { try phone.checkIn(Int64(mood)) }
        await syncUntilQuiet([phone, tablet])
        try world.inject(.userDeletedZone)
        try phone.checkIn(4)
        #expect(await phone.sync()?.outcome == .paused(.userDeletedZone))
        #expect(try phone.status().state == .paused(.userDeletedZone))
        for _ in 0..<3 {
            await phone.sync(force: true)
            await tablet.sync(force: true)
        }
        #expect(try world.containerRecords(account: "alice").isEmpty, "nothing was uploaded again")
        #expect(try phone.stores.userCreated.count() == 4, "nothing local was deleted")
        #expect(try tablet.stores.userCreated.count() == 3)
        #expect(try tablet.status().state == .paused(.userDeletedZone), "the other device learns it too")
        // The user turns sync off and on: their consent to upload this device's data again.
        let phoneAgain = try phone.setSyncEnabled(false).setSyncEnabled(true)
        await phoneAgain.sync()
        #expect(try world.containerRecords(account: "alice").count == 4)
        #expect(try phoneAgain.status().isOn)
        let tabletAgain = try tablet.setSyncEnabled(false).setSyncEnabled(true)
        await syncUntilQuiet([phoneAgain, tabletAgain])
        #expect(try contents(tabletAgain) == containerContents(world, "alice"))
        #expect(try contents(phoneAgain).count == 4)
    }

    @Test("a change leaves the queue only when the container accepted it; a failing record does not hold back the rest")
    func changesLeaveOnlyWhenAccepted() async throws {
        let (world, phone) = try Self.setUp()
        try world.inject(.partialFailure)
        let report = try #require(await phone.sync())
        #expect(report.sentSaves == 2, "the batch is resent without the rejected record")
        #expect(try phone.stores.userCreated.pendingChangeCount() == 1)
        guard case .retrying(.serverRejectedRequest)? = report.outcome else {
            Issue.record("expected a retry for the rejected record, got \(String(describing: report.outcome))")
            return
        }
        world.clock.advance(by: 10)
        await phone.sync()
        #expect(try phone.stores.userCreated.pendingChangeCount() == 0)
    }
}
