import DemoSchema
import Foundation
import PrivateCloudFaults
import PrivateSync
import PrivateSyncEngineTesting
import Testing

@testable import PartitionMirror

/// A record made here anew under a name the server holds an older record of: it survives a deletion of the older
/// one fetched before it lands, whichever way it met the older one (found by the delegate sweep once its user could
/// delete an entry and write it again at once: seeds 976, 921, 650 and 3257).
extension PartitionMirrorTests {
    /// How the new record meets the older one before another client deletes the older one.
    enum MeetsTheOlder: String, CaseIterable, CustomTestStringConvertible {
        /// Deleted here and written again before the delete went up; its save (which took the delete's place) meets
        /// the older one and is merged over it, taking its change tag.
        case madeAgainSaveMeetsIt
        /// Deleted here and written again; its save leaves and its answer is lost (it may have landed, for all the
        /// mirror knows).
        case madeAgainAnswerLost
        /// Written here under a name another client used meanwhile; its save meets theirs.
        case sameNameSaveMeetsIt
        /// Written here under a name another client used meanwhile; a fetch brings theirs before the save leaves.
        case sameNameFetchBringsIt

        var testDescription: String { rawValue }
    }

    @Test(
        "a record made anew here survives a deletion of the older record under its name, fetched before it lands",
        arguments: MeetsTheOlder.allCases)
    func madeAnewSurvivesTheOldersDeletion(meets: MeetsTheOlder) async throws {
        let cloud = try SyncEngineTestCloud()
        let date: [String: FieldValue] = ["date": .date(Date(timeIntervalSince1970: 0))]
        let synced = try await syncedPhone(cloud, entries: ["kept"])
        let phone = synced.mirror
        let x = PSRecord.ID(recordName: "X", zoneID: synced.zone)
        switch meets {
        case .madeAgainSaveMeetsIt, .madeAgainAnswerLost:
            try await phone.insert(journal, fields: date.merging(["body": .string("old")]) { $1 }, name: "X")
            try await phone.syncEngine.sendChanges()
            try await phone.delete("X")
            // Later than the older record: the merge by field keeps what is newer.
            try await writeXAgain(on: phone, in: cloud)
            if meets == .madeAgainAnswerLost {
                cloud.faults.add(Fault(.serverResponseLost, record: "X"), device: "phone")
            }
            try? await phone.syncEngine.sendChanges()
        case .sameNameSaveMeetsIt, .sameNameFetchBringsIt:
            try await save("Journal", "X", ["body": "theirs"], by: synced.other, in: synced.zone)
            try await writeXAgain(on: phone, in: cloud)
            if meets == .sameNameSaveMeetsIt {
                try? await phone.syncEngine.sendChanges()
            } else {
                try await phone.syncEngine.fetchChanges()
            }
        }
        #expect(try cloud.records(of: "alice").contains { $0.recordID == x && $0["body"] != "new" })
        // Another client deletes the older record, by name, before the new one lands.
        _ = try await synced.other.deleteRecord(withID: x)
        try await phone.syncEngine.fetchChanges()
        #expect(try synced.stores.userCreated.record(named: "X")?.fields["body"] == .string("new"))
        for _ in 0..<3 { try? await phone.syncEngine.sendChanges() }
        #expect(try cloud.records(of: "alice").first { $0.recordID == x }?["body"] == "new")
        #expect(try synced.stores.userCreated.syncSnapshot { try $0.engineState().creationsNotLanded }.isEmpty)
        try await phone.syncEngine.expectNothingPending()
    }

    @Test(
        "a record made again after its deletion went up survives that deletion's echo, though its first save may have landed"
    )
    func madeAgainSurvivesTheEchoWithItsSaveInFlight() async throws {
        let cloud = try SyncEngineTestCloud()
        let synced = try await syncedPhone(cloud, entries: ["X"])
        try await synced.mirror.delete("X")
        try await synced.mirror.syncEngine.sendChanges()
        #expect(try cloud.records(of: "alice").isEmpty)
        try await writeXAgain(on: synced.mirror, in: cloud)
        // The process dies with the new record's first save written down and its request not yet gone: the next
        // launch cannot tell whether it landed.
        let path = scratch.url.appending(path: "phone/mirror.json").path
        var bookkeeping = try PartitionMirror.readBookkeeping(at: path)
        bookkeeping.firstSendUnanswered.insert("X")
        try PartitionMirror.writeBookkeeping(bookkeeping, to: path, durability: .survivesProcessCrash)
        let (stores, relaunched) = try launch(synced.device, folder: "phone")
        #expect(await relaunched.bookkeeping.mayBeOnServer("X"))
        // The fetch brings the deletion of the older X back (this device's own, made before its last fetch).
        try await relaunched.syncEngine.fetchChanges()
        #expect(try stores.userCreated.record(named: "X")?.fields["body"] == .string("new"))
        for _ in 0..<3 { try? await relaunched.syncEngine.sendChanges() }
        #expect(try cloud.records(of: "alice").first { $0.recordID.recordName == "X" }?["body"] == "new")
        #expect(try stores.userCreated.syncSnapshot { try $0.engineState().namesDeletedHere }.isEmpty)
    }

    @Test(
        "a record made anew that a merge gives a later edit of the older one is that edit now: a deletion of it wins"
    )
    func madeAnewMergedWithALaterEditTakesItsDeletion() async throws {
        let cloud = try SyncEngineTestCloud()
        let synced = try await syncedPhone(cloud, entries: ["X"])
        let (_, watch) = try launch(try cloud.device("watch", signedInTo: "alice"), folder: "watch")
        try await watch.syncEngine.fetchChanges()
        try await synced.mirror.delete("X")
        try await writeXAgain(on: synced.mirror, in: cloud)
        // The watch, which never saw the new X, edits the older one later, and its edit lands.
        cloud.clock.advance(by: 1)
        try await watch.update("X", setting: ["body": .string("edited")])
        try await watch.syncEngine.sendChanges()
        // The phone's fetch merges it: the later edit's body wins, and the record is no longer the new one alone.
        try await synced.mirror.syncEngine.fetchChanges()
        #expect(try synced.stores.userCreated.record(named: "X")?.fields["body"] == .string("edited"))
        #expect(try synced.stores.userCreated.syncSnapshot { try $0.engineState().creationsNotLanded }.isEmpty)
        // The watch deletes what it saw (its own edit): the phone takes the deletion, and nothing comes back.
        try await watch.delete("X")
        try await watch.syncEngine.sendChanges()
        try await synced.mirror.syncEngine.fetchChanges()
        for _ in 0..<3 { try? await synced.mirror.syncEngine.sendChanges() }
        #expect(try synced.stores.userCreated.record(named: "X") == nil)
        #expect(try cloud.records(of: "alice").allSatisfy { $0.recordID.recordName != "X" })
    }

    @Test("a name deleted here stays so through a fetched edit of it while the delete waits to go up")
    func nameDeletedHereOutlivesAnEditFetchedBeforeItsDelete() async throws {
        let cloud = try SyncEngineTestCloud()
        let synced = try await syncedPhone(cloud, entries: ["X"])
        let (_, watch) = try launch(try cloud.device("watch", signedInTo: "alice"), folder: "watch")
        try await watch.syncEngine.fetchChanges()
        cloud.clock.advance(by: 1)
        try await watch.update("X", setting: ["body": .string("edited")])
        try await watch.syncEngine.sendChanges()
        try await synced.mirror.delete("X")
        // The edit comes while the delete waits (the delete wins, and goes up next): the deletion is still to come
        // back, and a record made under the name before it does is made anew.
        try await synced.mirror.syncEngine.fetchChanges()
        let state = { try synced.stores.userCreated.syncSnapshot { try $0.engineState() } }
        #expect(try state().namesDeletedHere == ["X"])
        try await synced.mirror.syncEngine.sendChanges()
        try await writeXAgain(on: synced.mirror, in: cloud)
        #expect(try state().creationsNotLanded == ["X"])
    }

    /// Writes X again on a phone, later than anything before: body "new" (the merge by field keeps what is newer).
    func writeXAgain(on phone: PartitionMirror, in cloud: SyncEngineTestCloud) async throws {
        cloud.clock.advance(by: 1)
        try await phone.insert(
            journal, fields: ["date": .date(Date(timeIntervalSince1970: 0)), "body": .string("new")], name: "X")
    }

    @Test(
        "a record made again whose save the server refused for good stays on the device when its predecessor's deletion comes back",
        arguments: [FaultKind.partialFailure, .itemLimitExceeded])
    func madeAgainRefusedForGoodSurvivesTheEcho(refusal: FaultKind) async throws {
        let cloud = try SyncEngineTestCloud()
        let synced = try await syncedPhone(cloud, entries: ["X"])
        let phone = synced.mirror
        try await phone.delete("X")
        try await phone.syncEngine.sendChanges()
        try await writeXAgain(on: phone, in: cloud)
        // Refused one by one, for good: the change is dropped, the record stays here (seed 700 of the delegate's
        // build, where a deletion heard again then deleted it).
        cloud.faults.add(Fault(refusal, record: "X"), device: "phone")
        try? await phone.syncEngine.sendChanges()
        #expect(try cloud.records(of: "alice").isEmpty)
        try await phone.syncEngine.fetchChanges()
        #expect(try synced.stores.userCreated.record(named: "X")?.fields["body"] == .string("new"))
    }

    @Test(
        "an edit whose save the server refused for good is merged with a version fetched later, and goes up with it",
        arguments: [FaultKind.partialFailure, .itemLimitExceeded])
    func refusedEditMergesWithALaterVersion(refusal: FaultKind) async throws {
        let cloud = try SyncEngineTestCloud()
        let devices = try await phoneAndTablet(cloud, sharing: "a", body: "first")
        let (phone, tablet, phoneStores) = (devices.phone, devices.tablet, devices.phoneStores)
        cloud.clock.advance(by: 1)
        try await phone.update("a", setting: ["body": .string("mine")])
        cloud.faults.add(Fault(refusal, record: "a"), device: "phone")
        try? await phone.syncEngine.sendChanges()
        #expect(try phoneStores.userCreated.syncSnapshot { try $0.engineState().savesRefused } == ["a"])
        // The echo of the version that landed says nothing of the refused edit: the name stays.
        try await phone.syncEngine.fetchChanges()
        #expect(try phoneStores.userCreated.syncSnapshot { try $0.engineState().savesRefused } == ["a"])
        // And the status says so, sync on for everything else.
        let refused = try await phone.status()
        #expect(refused.state == .on(.upToDate) && refused.savesRefused == ["a"])
        #expect(refused.copy.contains("1 record written on this device iCloud refused to save"), "\(refused.copy)")
        // Written again, it waits to go up: no longer held as refused.
        try await phone.update("a", setting: ["body": .string("mine, again")])
        let writtenAgain = try await phone.status()
        #expect(writtenAgain.savesRefused.isEmpty && writtenAgain.pendingChanges == 1, "\(writtenAgain)")
        cloud.faults.add(Fault(refusal, record: "a"), device: "phone")
        try? await phone.syncEngine.sendChanges()
        #expect(try await phone.status().savesRefused == ["a"])
        cloud.clock.advance(by: 1)
        try await tablet.update("a", setting: ["note": .string("theirs")])
        try await tablet.syncEngine.sendChanges()
        // Taken whole, the tablet's version put "first" back over the refused edit (seed 713 of the delegate's
        // build): merged, each side keeps what it wrote last.
        try await phone.syncEngine.fetchChanges()
        let merged = try #require(try phoneStores.userCreated.record(named: "a"))
        #expect(merged.fields["body"] == .string("mine, again") && merged.fields["note"] == .string("theirs"))
        try await phone.syncEngine.sendChanges()
        let server = try #require(try cloud.records(of: "alice").first { $0.recordID.recordName == "a" })
        #expect(server["body"] == "mine, again" && server["note"] == "theirs")
        #expect(try phoneStores.userCreated.syncSnapshot { try $0.engineState().savesRefused }.isEmpty)
        #expect(try await phone.status().savesRefused.isEmpty)
        try await phone.syncEngine.expectNothingPending()
    }

    @Test("a deletion fetched after the record made anew landed deletes it: it is a deletion of that record")
    func madeAnewDeletedAfterItLanded() async throws {
        let cloud = try SyncEngineTestCloud()
        let synced = try await syncedPhone(cloud, entries: ["X"])
        let phone = synced.mirror
        try await phone.delete("X")
        try await writeXAgain(on: phone, in: cloud)
        for _ in 0..<3 { try? await phone.syncEngine.sendChanges() }
        #expect(try cloud.records(of: "alice").first { $0.recordID.recordName == "X" }?["body"] == "new")
        _ = try await synced.other.deleteRecord(withID: PSRecord.ID(recordName: "X", zoneID: synced.zone))
        try await phone.syncEngine.fetchChanges()
        #expect(try synced.stores.userCreated.record(named: "X") == nil)
        try await phone.syncEngine.expectNothingPending()
    }
}
