import PrivateSyncTesting
import Synchronization
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which account a record is written under, and so which archive keeps it apart when the device starts afresh.
@Suite("Sync engine: a record belongs to the account it reaches")
struct SyncEngineRecordOwnerTests {
    @Test("a record written while signed out becomes the account's when sent, so starting afresh keeps it apart")
    func recordsWrittenSignedOutBelongToTheAccountTheyReach() async throws {
        let (world, phone, signedOut) = try await signedOutPhoneWithAnUnsentRecord()
        try phone.device.signIn(AccountID("alice"))
        await phone.sync(force: true)
        #expect(try phone.stores.userCreated.record(named: signedOut.name)?.origin == AccountID("alice").userRecordID)
        try phone.device.signIn(AccountID("bob"))
        await phone.sync(force: true)
        let archive = try phone.startFreshForSignedInAccount()
        #expect(archive.records == 2)
        await phone.sync(force: true)
        #expect(try world.containerRecords(account: "bob").isEmpty)
        #expect(try world.audit(accounts: ["alice", "bob"]).isClean)
    }
}
