import PrivateSyncTesting
import Synchronization
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When nothing may move (changes held for another account, an account that cannot sync), the engine neither counts
/// them as pending nor keeps asking to run.
@Suite("Sync engine: nothing it may do, no run asked for")
struct SyncEngineIdleTests {
    @Test("a change written under another account neither counts as pending nor keeps the engine asking to run")
    func changesOfAnotherAccountAreHeldQuietly() async throws {
        let (world, phone, _) = try await syncedPhone(checkIns: 1)
        try phone.device.signIn(AccountID("bob"))
        let underBob = try phone.checkIn(5)
        await phone.sync(force: true)
        try phone.device.signIn(AccountID("alice"))
        await phone.sync(force: true)
        await phone.sync(force: true)
        #expect(try phone.status().state == .on(.upToDate))
        #expect(phone.engine?.nextRunDate() == nil)
        #expect(try !world.containerRecords(account: "alice").map(\.recordID.recordName).contains(underBob.name))
        #expect(try phone.stores.userCreated.pendingChanges().map(\.recordName) == [underBob.name], "held, not lost")
    }

    @Test("while the account is unusable the engine does not keep asking to run")
    func noBusyLoopWhileTheAccountIsUnusable() async throws {
        let (_, phone, _) = try await signedOutPhoneWithAnUnsentRecord()
        #expect(await phone.sync()?.outcome == .paused(.noAccount))
        #expect(phone.engine?.nextRunDate() == nil)
        try phone.device.signIn(AccountID("bob"))
        #expect(await phone.sync(force: true)?.outcome == .paused(.accountChanged))
        #expect(phone.engine?.nextRunDate() == nil)
        #expect(try phone.status().state == .paused(.accountChanged))
    }
}
