import PrivateSyncEngineTesting
import Testing

/// The delegate sweep's oracle on its own: what each account's server may hold at the end, from the writes the users
/// made and the rules that remove one. Small histories, each written out.
@Suite("The delegate sweep's oracle")
struct SweepHistoryTests {
    /// Device 0 creates `k` = v1 in alice and hears it went up.
    func createdAndHeard() -> SweepHistory {
        var history = SweepHistory()
        history.record(account: "alice", device: 0, key: "k", value: "v1", parent: nil, step: 0)
        history.heardUp(device: 0, key: "k", value: "v1")
        return history
    }

    /// Device 0 creates `k` = v1 in alice and hears it went up, device 1 edits it to v2 having seen v1.
    func edited() -> SweepHistory {
        var history = createdAndHeard()
        history.record(account: "alice", device: 1, key: "k", value: "v2", parent: "v1", step: 1)
        return history
    }

    @Test(
        "an overwritten value, or nothing, is a lost write; the latest value is not",
        arguments: [("v2", nil), ("v1", .noLostWrites), (nil, .noLostWrites)]
            as [(String?, DelegateSweepFailure.Invariant?)])
    func overwritten(server: String?, broken: DelegateSweepFailure.Invariant?) {
        let verdict = edited().verdict(account: "alice", server: server.map { ["k": $0] } ?? [:], refused: [])
        #expect(verdict?.invariant == broken)
    }

    @Test(
        "a save shown while up to date is still to go up until its own device hears the server held it, saved or in a conflict",
        arguments: Hearing.allCases)
    func unsentSave(hearing: Hearing) {
        var history = SweepHistory()
        history.record(account: nil, device: 0, key: "k", value: "v1", parent: nil, step: 3)
        switch hearing {
        case .nothing: break
        case .saved: history.heardUp(device: 0, key: "k", value: "v1")
        case .conflict: history.heardInAConflict(device: 0, key: "k", value: "v1")
        case .otherDevice:
            history.heardUp(device: 1, key: "k", value: "v1")
            history.heardInAConflict(device: 1, key: "k", value: "v1")
        }
        let unsent = hearing == .nothing || hearing == .otherDevice
        // Made signed into no account: it is the account's the device shows next.
        #expect(history.stepOfUnsentSave(device: 0, account: "alice", key: "k", value: "v1") == (unsent ? 3 : nil))
    }

    @Test("a value shown is an unsent save only of the device that wrote it, for its item")
    func unsentSaveIsTheWritersOwn() {
        var history = SweepHistory()
        history.record(account: "alice", device: 0, key: "k", value: "v1", parent: nil, step: 2)
        let asked = [(0, "k", "v1"), (1, "k", "v1"), (0, "j", "v1"), (0, "k", "v0")].map { device, key, value in
            history.stepOfUnsentSave(device: device, account: "alice", key: key, value: value)
        }
        #expect(asked == [2, nil, nil, nil])
    }

    @Test(
        "a delete of the value the server holds is still to go up until confirmed or heard of, unless the device wrote again or learned of a reset",
        arguments: AfterTheDelete.allCases)
    func unsentDelete(after: AfterTheDelete) {
        var history = createdAndHeard()
        if after == .learnedOfAnEarlierReset {
            history.zoneDeleted(
                account: "alice", reason: .encryptedDataReset, step: 1, server: ["k": "v1"], heldByDevices: [1: ["v1"]])
        }
        history.record(account: "alice", device: 0, key: "k", value: nil, parent: "v1", step: 4)
        switch after {
        case .nothing: break
        case .confirmed: history.confirmDelete(device: 0, key: "k", foundNothing: nil)
        case .writtenAgain: history.record(account: "alice", device: 0, key: "k", value: "v2", parent: nil, step: 5)
        case .heardGone: history.heardGone(device: 0, key: "k")
        case .learnedOfAnEarlierReset: history.deviceLearnedOfReset(0, account: "alice")
        case .leftTheAccount: history.deviceLeft(0, account: "alice", server: ["k": "v1"], step: 5)
        }
        #expect(
            history.stepOfUnsentDelete(device: 0, account: "alice", key: "k", serverValue: "v1")
                == (after == .nothing ? 4 : nil))
        // Not while the server holds another value (an edit elsewhere may win), nor on another device.
        #expect(history.stepOfUnsentDelete(device: 0, account: "alice", key: "k", serverValue: "v3") == nil)
        #expect(history.stepOfUnsentDelete(device: 1, account: "alice", key: "k", serverValue: "v1") == nil)
    }

    @Test(
        "a delete made signed out, the zone reset before the device signed in, is not checked: the reset came after it"
    )
    func unsentDeleteBeforeAReset() {
        var history = createdAndHeard()
        history.record(account: nil, device: 0, key: "k", value: nil, parent: "v1", step: 1)
        #expect(history.stepOfUnsentDelete(device: 0, account: "alice", key: "k", serverValue: "v1") == 1)
        history.zoneDeleted(
            account: "alice", reason: .encryptedDataReset, step: 2, server: ["k": "v1"], heldByDevices: [1: ["v1"]])
        // A reset forgives none of the writes made signed out, nor does their giving to the account.
        history.attribute(device: 0, to: "alice")
        #expect(history.stepOfUnsentDelete(device: 0, account: "alice", key: "k", serverValue: "v1") == nil)
    }

    @Test("a change made under another account is not the one signed in's to send")
    func unsentSaveOfAnotherAccount() {
        var history = SweepHistory()
        history.record(account: "bob", device: 0, key: "k", value: "v1", parent: nil, step: 0)
        #expect(history.stepOfUnsentSave(device: 0, account: "alice", key: "k", value: "v1") == nil)
        #expect(history.stepOfUnsentSave(device: 0, account: "bob", key: "k", value: "v1") == 0)
        history.record(account: "bob", device: 0, key: "k", value: nil, parent: "v1", step: 1)
        #expect(history.stepOfUnsentDelete(device: 0, account: "alice", key: "k", serverValue: "v1") == nil)
        #expect(history.stepOfUnsentDelete(device: 0, account: "bob", key: "k", serverValue: "v1") == 1)
    }

    @Test(
        "a conflict's answer holding a device's value leaves what the server may end with as it was: the value may land again over a later edit"
    )
    func conflictLeavesTheVerdict() {
        var history = SweepHistory()
        history.record(account: "alice", device: 0, key: "k", value: "v1", parent: nil, step: 0)
        history.heardInAConflict(device: 0, key: "k", value: "v1")
        history.record(account: "alice", device: 1, key: "k", value: "v2", parent: "v1", step: 1)
        // Heard up instead, v1 over v2 would be a lost write (``overwritten(server:broken:)``).
        #expect(history.verdict(account: "alice", server: ["k": "v1"], refused: []) == nil)
    }

    @Test("two edits made without seeing each other may settle either way, and no other way")
    func concurrentEdits() {
        var history = createdAndHeard()
        history.record(account: "alice", device: 0, key: "k", value: "a", parent: "v1", step: 1)
        history.record(account: "alice", device: 1, key: "k", value: "b", parent: "v1", step: 2)
        for held in ["a", "b"] { #expect(history.verdict(account: "alice", server: ["k": held], refused: []) == nil) }
        #expect(history.verdict(account: "alice", server: ["k": "v1"], refused: [])?.invariant == .noLostWrites)
    }

    @Test("an edit that never went up is forgiven when its device leaves the account; one that went up is not")
    func deviceLeft() {
        var history = edited()
        history.deviceLeft(1, account: "alice", server: ["k": "v1"], step: 2)
        #expect(history.verdict(account: "alice", server: ["k": "v1"], refused: []) == nil)
        var upThenLeft = edited()
        upThenLeft.deviceLeft(1, account: "alice", server: ["k": "v2"], step: 2)
        #expect(upThenLeft.verdict(account: "alice", server: ["k": "v1"], refused: [])?.invariant == .noLostWrites)
    }

    @Test(
        "a delete the server had nothing for may see the item come back; one it carried out may not",
        arguments: ["unknownItem", "zoneNotFound", "userDeletedZone", nil] as [String?])
    func deleteThatFoundNothing(code: String?) {
        var history = edited()
        history.heardUp(device: 1, key: "k", value: "v2")
        history.record(account: "alice", device: 1, key: "k", value: nil, parent: "v2", step: 2)
        history.confirmDelete(device: 1, key: "k", foundNothing: code)
        let verdict = history.verdict(account: "alice", server: ["k": "v2"], refused: [])
        #expect(verdict?.invariant == (code == nil ? .noLostWrites : nil))
    }

    /// A deletion of the zone, and whether the app waits for the user after it (``SweptApp``'s
    /// `waitsForTheUserAfterAnAppsDeletion`).
    struct StayingDeletion: CustomStringConvertible {
        let reason: PSDatabase.DatabaseChange.Deletion.Reason
        let appWaits: Bool
        var staysDeleted: Bool { reason == .purged || appWaits }
        var description: String { "\(reason), \(appWaits ? "an app that waits" : "an app that does not")" }
    }

    @Test(
        "what the user deleted from iCloud settings may not come back, nor what an app deleted for an app that waits for the user after it; a later write may",
        arguments: [
            StayingDeletion(reason: .purged, appWaits: false), StayingDeletion(reason: .deleted, appWaits: true),
            StayingDeletion(reason: .deleted, appWaits: false),
        ])
    func purgedStaysDeleted(_ deletion: StayingDeletion) {
        var history = edited()
        history.heardUp(device: 1, key: "k", value: "v2")
        history.zoneDeleted(
            account: "alice", reason: deletion.reason, step: 2, server: ["k": "v2"], heldByDevices: [:],
            staysDeleted: deletion.reason == .purged ? nil : deletion.appWaits)
        #expect(history.verdict(account: "alice", server: [:], refused: []) == nil)
        #expect(
            history.verdict(account: "alice", server: ["k": "v2"], refused: [])?.invariant
                == (deletion.staysDeleted ? .purgedStaysDeleted : nil))
        history.record(account: "alice", device: 0, key: "k", value: "v3", parent: "v2", step: 3)
        #expect(history.verdict(account: "alice", server: ["k": "v3"], refused: []) == nil)
    }

    @Test("once the user turns sync on again, what the device held is to be back; what it did not may stay deleted")
    func userTurnsSyncOnAgain() {
        var history = edited()
        history.record(account: "alice", device: 0, key: "j", value: "w1", parent: nil, step: 1)
        history.heardUp(device: 0, key: "j", value: "w1")
        history.zoneDeleted(
            account: "alice", reason: .purged, step: 2, server: ["k": "v2", "j": "w1"], heldByDevices: [:])
        history.deviceLearnedOfDeletion(1, account: "alice", step: 3)
        history.deviceReuploads(1, account: "alice", holding: ["v2"], step: 3)
        #expect(history.verdict(account: "alice", server: ["k": "v2"], refused: []) == nil)
        #expect(history.verdict(account: "alice", server: [:], refused: [])?.invariant == .noLostWrites)
        #expect(
            history.verdict(account: "alice", server: ["k": "v2", "j": "w1"], refused: [])?.invariant
                == .purgedStaysDeleted)
        // Its device gone from the account before it uploaded it again: it may stay deleted after all.
        history.deviceLeft(1, account: "alice", server: [:], step: 4)
        #expect(history.verdict(account: "alice", server: [:], refused: []) == nil)
    }

    @Test("a device's word covers only the deletions it had learned of: one it had not may still delete what it held")
    func userTurnsSyncOnAgainBeforeLearningOfADeletion() {
        var history = edited()
        history.zoneDeleted(account: "alice", reason: .purged, step: 2, server: ["k": "v2"], heldByDevices: [:])
        history.deviceLearnedOfDeletion(1, account: "alice", step: 3)
        history.zoneDeleted(account: "alice", reason: .deleted, step: 4, server: [:], heldByDevices: [:])
        history.deviceReuploads(1, account: "alice", holding: ["v2"], step: 5)
        #expect(history.verdict(account: "alice", server: [:], refused: []) == nil)
        #expect(history.verdict(account: "alice", server: ["k": "v2"], refused: []) == nil)
    }

    @Test("a save its device had not heard had landed when the user deleted the zone may land again after it")
    func unheardSaveMayComeBackAfterAPurge() {
        var history = edited()
        history.zoneDeleted(account: "alice", reason: .purged, step: 2, server: ["k": "v2"], heldByDevices: [:])
        // Device 1 never heard v2 was up: it sends it again, into the zone its save creates again.
        history.heardUp(device: 1, key: "k", value: "v2")
        #expect(history.verdict(account: "alice", server: ["k": "v2"], refused: []) == nil)
        // Device 0 had heard v1 was up before: v1 back is the purge undone.
        var earlier = SweepHistory()
        earlier.record(account: "alice", device: 0, key: "k", value: "v1", parent: nil, step: 0)
        earlier.heardUp(device: 0, key: "k", value: "v1")
        earlier.zoneDeleted(account: "alice", reason: .purged, step: 1, server: ["k": "v1"], heldByDevices: [:])
        #expect(earlier.verdict(account: "alice", server: ["k": "v1"], refused: [])?.invariant == .purgedStaysDeleted)
    }

    @Test("an encrypted-data reset forgives what no device held, and not what one did, until it leaves")
    func encryptedDataReset() {
        var history = edited()
        history.zoneDeleted(
            account: "alice", reason: .encryptedDataReset, step: 2, server: ["k": "v2"], heldByDevices: [1: ["v2"]])
        #expect(history.verdict(account: "alice", server: [:], refused: [])?.invariant == .noLostWrites)
        history.deviceLeft(1, account: "alice", server: [:], step: 3)
        #expect(history.verdict(account: "alice", server: [:], refused: []) == nil)
    }

    @Test(
        "an encrypted-data reset forgives no write a device that never fetched (opened offline) shows and the server did not hold: the reset did not lose it"
    )
    func resetSparesWhatAnUnfetchedDeviceShows() {
        var history = SweepHistory()
        history.record(account: "alice", device: 0, key: "k", value: "offline", parent: nil, step: 0)
        // Device 0 cannot learn of the reset (no database change token): it owes nothing again, and still shows it.
        history.zoneDeleted(
            account: "alice", reason: .encryptedDataReset, step: 1, server: [:], heldByDevices: [:],
            shown: ["offline"])
        #expect(history.verdict(account: "alice", server: [:], refused: [])?.invariant == .noLostWrites)
        #expect(history.verdict(account: "alice", server: ["k": "offline"], refused: []) == nil)
        // What the server held and only such a device shows, the reset lost: that device never uploads it again.
        var landed = SweepHistory()
        landed.record(account: "alice", device: 1, key: "k", value: "up", parent: nil, step: 0)
        landed.heardUp(device: 1, key: "k", value: "up")
        landed.zoneDeleted(
            account: "alice", reason: .encryptedDataReset, step: 1, server: ["k": "up"], heldByDevices: [:],
            shown: ["up"])
        #expect(landed.verdict(account: "alice", server: [:], refused: []) == nil)
    }

    @Test("a value written under one account found in another's database breaks privacy")
    func privacy() {
        let history = edited()
        #expect(history.verdict(account: "bob", server: ["k": "v2"], refused: [])?.invariant == .privacy)
        #expect(history.verdict(account: "bob", server: ["x": "y"], refused: [])?.invariant == .privacy)
    }

    @Test("a write made signed out belongs to the account its app next sees signed in")
    func signedOutWrite() {
        var history = SweepHistory()
        history.record(account: nil, device: 0, key: "k", value: "v1", parent: nil, step: 0)
        #expect(history.verdict(account: "bob", server: ["k": "v1"], refused: [])?.invariant == .privacy)
        history.attribute(device: 0, to: "bob")
        #expect(history.verdict(account: "bob", server: ["k": "v1"], refused: []) == nil)
        #expect(history.verdict(account: "bob", server: [:], refused: [])?.invariant == .noLostWrites)
    }

    @Test(
        "a write made signed out, then the account's zone deleted, may go with the zone once given to the account",
        arguments: [PSDatabase.DatabaseChange.Deletion.Reason.deleted, .purged])
    func signedOutWriteBeforeAZoneDeletion(reason: PSDatabase.DatabaseChange.Deletion.Reason) {
        var history = SweepHistory()
        history.record(account: nil, device: 0, key: "k", value: "v1", parent: nil, step: 0)
        history.zoneDeleted(account: "bob", reason: reason, step: 1, server: [:], heldByDevices: [:])
        history.record(account: nil, device: 0, key: "j", value: "w1", parent: nil, step: 2)
        history.attribute(device: 0, to: "bob")
        #expect(history.verdict(account: "bob", server: ["j": "w1"], refused: []) == nil)
        #expect(history.verdict(account: "bob", server: [:], refused: [])?.invariant == .noLostWrites)
    }

    @Test("an item the server refuses for good is not judged")
    func refused() {
        #expect(edited().verdict(account: "alice", server: [:], refused: ["k"]) == nil)
    }

    @Test("a save overwritten elsewhere before its device heard it was up may land again; one it heard of may not")
    func unheardSaveMayLandAgain() {
        var unheard = SweepHistory()
        unheard.record(account: "alice", device: 0, key: "k", value: "v1", parent: nil, step: 0)
        unheard.record(account: "alice", device: 1, key: "k", value: nil, parent: "v1", step: 1)
        #expect(unheard.verdict(account: "alice", server: ["k": "v1"], refused: []) == nil)
        var heard = SweepHistory()
        heard.record(account: "alice", device: 0, key: "k", value: "v1", parent: nil, step: 0)
        heard.heardUp(device: 0, key: "k", value: "v1")
        heard.record(account: "alice", device: 1, key: "k", value: nil, parent: "v1", step: 1)
        #expect(heard.verdict(account: "alice", server: ["k": "v1"], refused: [])?.invariant == .noLostWrites)
        var ownOverwrite = SweepHistory()
        ownOverwrite.record(account: "alice", device: 0, key: "k", value: "v1", parent: nil, step: 0)
        ownOverwrite.record(account: "alice", device: 0, key: "k", value: "v2", parent: "v1", step: 1)
        #expect(ownOverwrite.verdict(account: "alice", server: ["k": "v1"], refused: [])?.invariant == .noLostWrites)
    }

    /// What the server did with `k` after device 0 deleted v1 and wrote `k` = s at once (a new item under the old
    /// name), while device 1 deleted v1, having seen it.
    enum ServerOrder: String, CaseIterable, CustomTestStringConvertible {
        /// Device 1's delete landed before s did, and took v1; s never landed.
        case deleteTookTheOlderOne
        /// s landed, then a delete by name took it.
        case deleteTookTheNewOne
        /// s landed, an edit of v1 written after s was merged over it, and a delete took that edit.
        case deleteTookALaterEdit

        var testDescription: String { rawValue }

        /// Whether the server may end without `k`.
        var nothingAllowed: Bool { self != .deleteTookTheOlderOne }
    }

    @Test(
        "a value made again after its device's delete is owed, unless a delete took the item from the server after it",
        arguments: ServerOrder.allCases)
    func madeAgainAfterItsDelete(order: ServerOrder) {
        var history = createdAndHeard()
        history.record(account: "alice", device: 0, key: "k", value: nil, parent: "v1", step: 1)
        history.record(account: "alice", device: 0, key: "k", value: "s", parent: nil, step: 1)
        history.record(account: "alice", device: 1, key: "k", value: nil, parent: "v1", step: 2)
        #expect(history.namesMadeAgain)
        switch order {
        case .deleteTookTheOlderOne:
            history.serverChanged(account: "alice", before: ["k": "v1"], after: [:])
        case .deleteTookTheNewOne:
            history.serverChanged(account: "alice", before: ["k": "v1"], after: ["k": "s"])
            history.serverChanged(account: "alice", before: ["k": "s"], after: [:])
        case .deleteTookALaterEdit:
            history.record(account: "alice", device: 2, key: "k", value: "w", parent: "v1", step: 3)
            history.serverChanged(account: "alice", before: ["k": "v1"], after: ["k": "s"])
            history.serverChanged(account: "alice", before: ["k": "s"], after: ["k": "w"])
            history.serverChanged(account: "alice", before: ["k": "w"], after: [:])
        }
        #expect(history.verdict(account: "alice", server: ["k": "s"], refused: []) == nil)
        let nothing = history.verdict(account: "alice", server: [:], refused: [])
        #expect(nothing?.invariant == (order.nothingAllowed ? nil : .noLostWrites))
    }

    @Test("a value deleted and made again by a device that showed another's is no value made again")
    func madeAfterAnothersDeleteIsNoneMadeAgain() {
        var history = SweepHistory()
        history.record(account: "alice", device: 0, key: "k", value: "v1", parent: nil, step: 0)
        history.record(account: "alice", device: 1, key: "k", value: nil, parent: "v1", step: 1)
        history.record(account: "alice", device: 0, key: "k", value: "s", parent: nil, step: 2)
        #expect(!history.namesMadeAgain)
        history.serverChanged(account: "alice", before: ["k": "v1"], after: [:])
        #expect(history.verdict(account: "alice", server: [:], refused: []) == nil)
    }
}

extension SweepHistoryTests {
    /// How a device heard of its save of `k` = v1 in alice, before the status is checked.
    enum Hearing: String, CaseIterable, Sendable {
        /// It did not: the save is still to go up.
        case nothing
        /// Its save came back saved, or a fetch brought the value.
        case saved
        /// Its save came back `serverRecordChanged`, the server's record holding v1 (an earlier save landed unheard).
        case conflict
        /// Another device heard it: not this one.
        case otherDevice
    }

    /// What came after device 0 deleted `k` = v1 in alice, before the status is checked.
    enum AfterTheDelete: String, CaseIterable, Sendable {
        /// Nothing: the delete is still to go up.
        case nothing
        /// The server confirmed it.
        case confirmed
        /// The device wrote the item again.
        case writtenAgain
        /// A fetch brought the item's deletion (another device's, or this one's with its answer lost): the value
        /// may land again (an unheard save retried), which the device has not fetched.
        case heardGone
        /// The device learned of a reset of the zone made before the delete: it may drop its deletes.
        case learnedOfAnEarlierReset
        /// The device left the account before its delete went up: forgiven.
        case leftTheAccount
    }
}
