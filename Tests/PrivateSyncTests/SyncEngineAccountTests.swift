import PrivateSyncSQLite
import PrivateSyncTesting
import Synchronization
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Sync engine: accounts")
struct SyncEngineAccountTests {
    /// How many edits the racing editor makes once a start-fresh has begun (see
    /// `startFreshWhileAnotherConnectionKeepsEditing`).
    static let editsWhileStartFreshRuns = 1000

    @Test("signing out pauses sync and keeps local data; signing back in sends what was written meanwhile")
    func signOutAndBackIn() async throws {
        let (world, phone, offline) = try await signedOutPhoneWithAnUnsentRecord()
        #expect(await phone.sync()?.outcome == .paused(.noAccount))
        #expect(try phone.status().state == .paused(.noAccount))
        #expect(try phone.stores.userCreated.count() == 2)
        try phone.device.signIn(AccountID("alice"))
        #expect(await phone.sync()?.outcome == .succeeded)
        #expect(try world.containerRecords(account: "alice").map(\.recordID.recordName).contains(offline.name))
    }

    @Test(
        "switching accounts pauses with accountChanged; the second account's container never gets the first's records")
    func switchingAccountsNeverMixesData() async throws {
        let (world, phone, _) = try await syncedPhone(checkIns: 3)
        let unsent = try phone.checkIn(4)
        try phone.device.signIn(AccountID("bob"))
        let underBob = try phone.checkIn(5)
        for _ in 0..<3 {
            #expect(await phone.sync(force: true)?.outcome == .paused(.accountChanged))
        }
        #expect(try phone.status().state == .paused(.accountChanged))
        #expect(try world.containerRecords(account: "bob").isEmpty)
        #expect(try phone.stores.userCreated.count() == 5, "nothing local is deleted")
        // Signing back into alice resumes, and the record written under bob never goes to alice.
        try phone.device.signIn(AccountID("alice"))
        let resumed = try #require(await phone.sync())
        #expect(resumed.outcome == .succeeded)
        let aliceNames = Set(try world.containerRecords(account: "alice").map(\.recordID.recordName))
        #expect(aliceNames.contains(unsent.name))
        #expect(!aliceNames.contains(underBob.name))
        #expect(try world.audit(accounts: ["alice", "bob"]).isClean)
    }

    @Test("starting afresh for the new account archives the old account's records and syncs the rest with the new one")
    func startFresh() async throws {
        let (world, phone, _) = try await syncedPhone(checkIns: 3)
        try phone.device.signIn(AccountID("bob"))
        let underBob = try phone.checkIn(5)
        await phone.sync()
        #expect(try phone.status().state == .paused(.accountChanged))
        let archive = try phone.startFreshForSignedInAccount()
        #expect(archive.records == 3)
        #expect(try StoreFileReader.origins(inStoreFile: archive.path).count == 3)
        await phone.sync()
        #expect(try phone.status().state == .on(.upToDate))
        #expect(try world.containerRecords(account: "bob").map(\.recordID.recordName) == [underBob.name])
        #expect(try world.containerRecords(account: "alice").count == 3, "alice's iCloud data is untouched")
        #expect(try world.audit(accounts: ["alice", "bob"]).isClean)
        #expect(throws: StoreError.self) { try phone.startFreshForSignedInAccount() }
    }

    @Test(
        "a start-fresh finishes while another connection edits the previous account's records without pause, and its archive holds every edit acknowledged before it"
    )
    func startFreshWhileAnotherConnectionKeepsEditing() async throws {
        let (world, phone, names) = try await syncedPhone(checkIns: 300)
        try phone.device.signIn(AccountID("bob"))
        await phone.sync()
        // A second launch of the same device opens its own connections to the same store files, as another process
        // (a second `privatesync record edit`) does. It edits as fast as it can while the start-fresh runs, up to
        // `editsWhileStartFreshRuns` edits: SQLite's busy handler does not queue waiters, so a writer that commits
        // and begins again without pause can keep the start-fresh waiting past its busy timeout (it did, 1 run in 4
        // under the suites' load). A user's edits are never that dense; the cap keeps the race and ends the
        // starvation.
        let other = try world.launch("phone")
        let startFreshBegun = Atomic<Bool>(false)
        let editsSoFar = Atomic<Int>(0)
        let editor = Task.detached { () -> [String: Int64] in
            var acknowledged: [String: Int64] = [:]
            var step: Int64 = 0
            var editsDuringStartFresh = 0
            while editsDuringStartFresh < Self.editsWhileStartFreshRuns {
                if startFreshBegun.load(ordering: .acquiring) { editsDuringStartFresh += 1 }
                step += 1
                let name = names[Int(step) % names.count]
                do {
                    try other.edit(name, setting: ["mood": .int64(1000 + step)])
                    acknowledged[name] = 1000 + step
                    editsSoFar.add(1, ordering: .releasing)
                } catch {
                    continue  // once the records are archived, an edit finds none
                }
            }
            return acknowledged
        }
        // The optimistic copy this replaces gave up after 20 copies that an edit overtook ("kept changing while
        // they were archived"): with edits landing every millisecond, it never finished.
        while editsSoFar.load(ordering: .acquiring) < 10 { await Task.yield() }  // the editor is under way
        startFreshBegun.store(true, ordering: .releasing)
        let archive = try phone.startFreshForSignedInAccount()
        let acknowledged = await editor.value
        #expect(throws: StoreError.self, "an edit after the start-fresh finds no record") {
            try other.edit(names[0], setting: ["mood": .int64(0)])
        }
        #expect(archive.records == names.count)
        let file = try Connection(path: archive.path, mode: .readOnly)
        let archived = Dictionary(
            uniqueKeysWithValues: try file.query("SELECT record_name, fields FROM records") {
                ($0.text(0), try FieldsJSON.decode($0.blob(1))["mood"])
            })
        for (name, mood) in acknowledged {
            #expect(archived[name] == .int64(mood), "the acknowledged edit of \(name) (mood \(mood)) is not archived")
        }
        let alice = try AccountID("alice").userRecordID
        #expect(try phone.stores.userCreated.records().allSatisfy { $0.origin != alice })
    }

    @Test("records written before the first sign-in go to the first account the store syncs with")
    func unownedRecordsAreAdopted() async throws {
        let (world, phone) = try launchedPhone(account: nil)
        #expect(try phone.status().state == .paused(.noAccount))
        let early = try phone.checkIn(2)
        try phone.device.signIn(AccountID("alice"))
        let app = try world.launch("phone")
        await app.sync()
        #expect(try world.containerRecords(account: "alice").map(\.recordID.recordName) == [early.name])
    }

    @Test("coming back to an account whose unsent records were archived brings them back and sends them")
    func archivedRecordsComeBackWithTheirAccount() async throws {
        let (world, phone, _) = try await syncedPhone(checkIns: 1)
        let unsent = try phone.checkIn(2)
        try phone.device.signIn(AccountID("bob"))
        await phone.sync()
        #expect(try phone.startFreshForSignedInAccount().records == 2)
        await phone.sync()
        try phone.device.signIn(AccountID("alice"))
        await phone.sync()
        try phone.startFreshForSignedInAccount()
        await phone.sync()
        #expect(try phone.stores.userCreated.record(named: unsent.name) != nil)
        #expect(try world.containerRecords(account: "alice").map(\.recordID.recordName).contains(unsent.name))
        #expect(try phone.status().state == .on(.upToDate))
        #expect(try world.audit(accounts: ["alice", "bob"]).isClean)
    }

    @Test("a full fetch from one account never deletes records that belong to another (restored from an archive)")
    func reconcilingKeepsOtherAccountsRecords() async throws {
        let (world, phone) = try launchedPhone(account: "bob")
        let bobs = try phone.checkIn(3)
        await phone.sync()
        try phone.device.signIn(AccountID("alice"))
        await phone.sync()
        try phone.startFreshForSignedInAccount()  // bob's record goes to an archive
        await phone.sync()
        try phone.device.signIn(AccountID("bob"))
        await phone.sync()
        try phone.startFreshForSignedInAccount()  // bob's record comes back, with bob's change tag
        try phone.device.signIn(AccountID("alice"))
        await phone.sync()  // the store binds to alice and fetches her whole zone
        #expect(
            try phone.stores.userCreated.record(named: bobs.name) != nil, "bob's record was deleted by alice's fetch")
        #expect(try !world.containerRecords(account: "alice").map(\.recordID.recordName).contains(bobs.name))
        #expect(try world.audit(accounts: ["alice", "bob"]).isClean)
    }
}
