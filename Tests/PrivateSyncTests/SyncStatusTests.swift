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
        }
        #expect(checked > 10_000)
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
