import PrivateSyncTesting
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("Sync status")
struct SyncStatusTests {
    static let alice = try! AccountID("alice").userRecordID
    static let bob = try! AccountID("bob").userRecordID

    static func facts(
        wanted: Bool = true, cloud: Bool = true, fallback: PauseReason? = nil, status: AccountStatus = .available,
        current: UserRecordID? = alice, bound: UserRecordID? = alice, pause: PauseReason? = nil,
        outcome: EngineOutcome? = .succeeded, pending: Int = 0, fetched: Bool = true
    ) -> SyncFacts {
        SyncFacts(
            syncWanted: wanted, userCreatedStoreIsCloud: cloud, launchFallback: fallback, accountStatus: status,
            currentUser: current, boundUser: bound, enginePause: pause, lastOutcome: outcome, nextAttempt: nil,
            initialFetchDone: fetched, pendingChanges: pending)
    }

    @Test("every pause reason is reached from its fact", arguments: PauseReason.allCases)
    func everyPauseReason(reason: PauseReason) {
        let facts: SyncFacts =
            switch reason {
            case .missingEntitlement, .storeCreationFailed: Self.facts(cloud: false, fallback: reason)
            case .noAccount: Self.facts(status: .noAccount, current: nil)
            case .accountRestricted: Self.facts(status: .restricted)
            case .accountTemporarilyUnavailable: Self.facts(status: .temporarilyUnavailable)
            case .accountChanged: Self.facts(current: Self.bob)
            case .userDeletedZone, .quotaExceeded, .containerUnusable: Self.facts(pause: reason)
            }
        let status = SyncStatus.derive(from: facts)
        #expect(status.state == .paused(reason))
        #expect(status.fallbackOccurred)
        #expect(status.copy == reason.copy)
        #expect(status.copy.hasPrefix("Sync is paused: "))
    }

    @Test("on, in its three details")
    func onDetails() {
        #expect(SyncStatus.derive(from: Self.facts()).state == .on(.upToDate))
        #expect(SyncStatus.derive(from: Self.facts(pending: 3)).state == .on(.syncing))
        #expect(SyncStatus.derive(from: Self.facts(fetched: false)).state == .on(.syncing))
        let waiting = SyncStatus.derive(from: Self.facts(outcome: .retrying(.networkUnavailable), pending: 2))
        #expect(waiting.state == .on(.waiting(reason: .offline, nextAttempt: nil)))
        #expect(waiting.copy.contains("2 changes not yet uploaded"))
        #expect(!waiting.fallbackOccurred)
    }

    @Test("off is off whatever else is true")
    func offIsOff() {
        let status = SyncStatus.derive(
            from: Self.facts(wanted: false, cloud: false, status: .noAccount, pause: .quotaExceeded))
        #expect(status.state == .off && !status.fallbackOccurred)
    }

    /// Every combination of facts (a few thousand), against the invariant.
    static var everyCombination: [SyncFacts] {
        var all: [SyncFacts] = []
        let outcomes: [EngineOutcome?] =
            [nil, .succeeded, .retrying(.networkFailure), .retrying(.internalError)]
            + PauseReason.allCases.map { .paused($0) }
        for wanted in [true, false] {
            for cloud in [true, false] {
                for fallback in [nil] + PauseReason.allCases.map(Optional.some) {
                    for status in AccountStatus.allCases {
                        for bound in [nil, Self.alice, Self.bob] {
                            for pause in [nil, PauseReason.userDeletedZone, .quotaExceeded, .accountChanged] {
                                for outcome in outcomes {
                                    all.append(
                                        Self.facts(
                                            wanted: wanted, cloud: cloud, fallback: fallback, status: status,
                                            current: status == .noAccount ? nil : Self.alice, bound: bound,
                                            pause: pause,
                                            outcome: outcome, pending: 1))
                                }
                            }
                        }
                    }
                }
            }
        }
        return all
    }

    @Test("the status invariant: never on when the store is local, a fallback happened, or sync stopped for good")
    func statusInvariant() {
        var checked = 0
        for facts in Self.everyCombination {
            let status = SyncStatus.derive(from: facts)
            checked += 1
            #expect(status.fallbackOccurred == (status.pauseReason != nil))
            guard status.isOn else { continue }
            #expect(facts.syncWanted)
            #expect(facts.userCreatedStoreIsCloud, "on with a local store: \(facts)")
            #expect(facts.launchFallback == nil, "on after a fallback: \(facts)")
            #expect(facts.accountStatus == .available)
            #expect(facts.enginePause == nil)
            if case .paused? = facts.lastOutcome { Issue.record("on after a pausing failure: \(facts)") }
            #expect(facts.boundUser == nil || facts.boundUser == facts.currentUser)
            // The other side: never syncing or up to date on a store no cycle has bound (nothing has moved).
            if facts.boundUser == nil, case .on(.syncing) = status.state {
                Issue.record("syncing though no sync has run: \(facts)")
            }
            if facts.boundUser == nil, case .on(.upToDate) = status.state {
                Issue.record("up to date though no sync has run: \(facts)")
            }
        }
        #expect(checked > 10_000)
    }

    @Test("before the first sync the status says it has not run, never that it is downloading")
    func firstSyncNotRun() {
        let unsynced = SyncStatus.derive(from: Self.facts(bound: nil, outcome: nil, fetched: false))
        #expect(unsynced.state == .on(.notYetSynced))
        #expect(unsynced.copy == "Sync is on: the first sync has not run yet; nothing is downloaded until it does.")
        #expect(!unsynced.copy.contains("downloading"))
        #expect(!unsynced.fallbackOccurred && unsynced.isOn)
        #expect(unsynced.description == "on (notYetSynced, 0 pending)")
        // Changes written before the first sync wait for it: nothing is uploading either.
        let one = SyncStatus.derive(from: Self.facts(bound: nil, outcome: nil, pending: 1, fetched: false))
        #expect(one.state == .on(.notYetSynced) && one.pendingChanges == 1)
        #expect(
            one.copy == "Sync is on: the first sync has not run yet; until it does, nothing is downloaded and 1 change "
                + "waits to upload.")
        let three = SyncStatus.derive(from: Self.facts(bound: nil, outcome: nil, pending: 3, fetched: false))
        #expect(three.copy.hasSuffix("nothing is downloaded and 3 changes wait to upload."))
        // A cycle that ended before binding (the account unusable then) synced nothing either.
        let unusable = SyncStatus.derive(
            from: Self.facts(bound: nil, outcome: .accountUnusable(.noAccount), fetched: false))
        #expect(unusable.state == .on(.notYetSynced))
    }

    @Test("a first sync that failed says waiting and why; a bound store with its first download unfinished says so")
    func afterTheFirstCycleStarts() {
        let failed = SyncStatus.derive(from: Self.facts(bound: nil, outcome: .retrying(.networkUnavailable)))
        #expect(failed.state == .on(.waiting(reason: .offline, nextAttempt: nil)))
        // A pause wins over the first sync: never on while sync cannot run.
        let signedOut = SyncStatus.derive(
            from: Self.facts(status: .noAccount, current: nil, bound: nil, outcome: nil, fetched: false))
        #expect(signedOut.state == .paused(.noAccount))
        let partway = SyncStatus.derive(from: Self.facts(outcome: nil, fetched: false))
        #expect(partway.state == .on(.syncing))
        #expect(partway.copy == "Sync is on: the first download from your iCloud has not finished.")
        #expect(SyncStatus.derive(from: Self.facts()).state == .on(.upToDate))
    }

    @Test("a launched app reads not yet synced until its first cycle, then up to date")
    func launchThenFirstCycle() async throws {
        let world = try TestWorld()
        _ = try world.addDevice("phone", account: "alice", sync: true)
        let app = try world.launch("phone")
        #expect(try app.status().state == .on(.notYetSynced))
        let report = await app.sync()
        #expect(report?.outcome == .succeeded)
        let after = try app.status()
        #expect(after.state == .on(.upToDate), "\(after)")
        #expect(!after.copy.contains("has not run"))
    }

    @Test("a real app's status follows its facts: signing out pauses at once, without relaunching")
    func liveAccountFacts() throws {
        let world = try TestWorld()
        let device = try world.addDevice("phone", account: "alice", sync: true)
        let app = try world.launch("phone")
        #expect(try app.status().isOn)
        try device.signOut()
        #expect(try app.status().state == .paused(.noAccount))
        try device.signIn(AccountID("alice"))
        #expect(try app.status().isOn)
    }
}
