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

    /// What tells the engine that the account it found unusable may be usable again.
    enum AccountCameBack: String, CaseIterable, CustomTestStringConvertible {
        /// The app observed `CKAccountChanged` (``LaunchedApp/reactToAccountChange()``).
        case accountChange
        /// The user turned sync off and on.
        case syncTurnedOn
        /// The app was launched again.
        case launch

        var testDescription: String { rawValue }
    }

    @Test(
        "an attempt stopped by a signed-out account does not keep the engine from asking to run once the account is back",
        arguments: AccountCameBack.allCases)
    func asksToRunOnceTheAccountIsBack(_ event: AccountCameBack) async throws {
        let (world, phone, record) = try await signedOutPhoneWithAnUnsentRecord()
        #expect(await phone.sync()?.outcome == .paused(.noAccount))
        #expect(phone.engine?.nextRunDate() == nil)
        try phone.device.signIn(AccountID("alice"))
        let app: LaunchedApp =
            switch event {
            case .accountChange: try phone.reactToAccountChange()
            case .syncTurnedOn: try phone.setSyncEnabled(false).setSyncEnabled(true)
            case .launch: try world.launch("phone")
            }
        // Due at once, as after any success while a change waits; and the scheduled cycle it asks for sends it.
        let now = world.clock(of: "phone").now()
        #expect(app.engine?.nextRunDate() == now)
        #expect(try app.status().state == .on(.syncing))
        #expect(await app.sync()?.outcome == .succeeded)
        #expect(try world.containerRecords(account: "alice").map(\.recordID.recordName).contains(record.name))
    }
}
