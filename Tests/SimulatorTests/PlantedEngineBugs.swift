import DeviceStore
import Simulator
import Testing

/// The bugs `PlantedBug` puts back in the stores and the engine: the simulator alone (its invariants, no unit test)
/// must catch each within the 300 seeds `make test` runs, by an invariant that should catch it.
@Suite("Simulator planted engine bugs")
struct PlantedEngineBugs {
    /// Runs seeds 0..<300 with `bug` planted until one fails, by one of `invariants`, that passes without it: a seed
    /// that fails either way proves nothing about the planted bug, and one where the planted bug only changed the
    /// path into a failure of another kind is printed and passed over. Prints and returns the catching seed and
    /// invariant.
    static func firstCatch(_ bug: PlantedBug, by invariants: Set<Invariant>) async -> (Invariant, UInt64)? {
        for seed in 0..<UInt64(300) {
            let run = await Simulation.run(
                SimulationOptions(seed: seed, steps: 200, hooks: SimulationHooks(plantedBugs: [bug])))
            guard let failure = run.failure else { continue }
            let baseline = await Simulation.run(SimulationOptions(seed: seed, steps: 200))
            guard baseline.failure == nil else { continue }
            guard let invariant = failure.invariant, invariants.contains(invariant) else {
                print("planted bug '\(bug.rawValue)': seed \(seed) failed by \(failure.kind), passed over")
                continue
            }
            print("planted bug '\(bug.rawValue)': caught at seed \(seed) by invariant \(invariant)")
            return (invariant, seed)
        }
        return nil
    }

    /// Expects `bug` caught within 300 seeds by one of `invariants`.
    static func expectCaught(_ bug: PlantedBug, by invariants: Set<Invariant>) async throws {
        let caught = await firstCatch(bug, by: invariants)
        let (invariant, seed) = try #require(caught, "planted bug '\(bug.rawValue)' not caught in 300 seeds")
        #expect(invariants.contains(invariant), "'\(bug.rawValue)' caught by \(invariant) at seed \(seed)")
    }

    /// A bug to plant, the invariants that should catch it, and what it does.
    struct Planted: Sendable, CustomTestStringConvertible {
        let bug: PlantedBug
        let invariants: Set<Invariant>
        let testDescription: String

        init(_ bug: PlantedBug, by invariants: Set<Invariant>, _ description: String) {
            self.bug = bug
            self.invariants = invariants
            self.testDescription = description
        }
    }

    static let planted: [Planted] = [
        Planted(
            .uploadsAfterSyncOff, by: [.nothingLeavesWhenOff],
            "a cycle in flight uploads writes made after sync off (behaviour 1)"),
        // The old cycle writing anything of the previous account into the fresh store: its records, a pause of its own
        // (a stale cause), or a re-upload to it.
        Planted(
            .cycleSurvivesStartFresh,
            by: [.accountsNeverMix, .noAcknowledgedWriteLost, .honestStatus, .deletionNeedsConsent],
            "a cycle running across start-fresh refills the store with the previous account (behaviour 2)"),
        Planted(
            .batchConflictFailsCycle, by: [.honestStatus],
            "a conflict inside an atomic batch ends the cycle waiting (behaviour 3)"),
        Planted(
            .ignoresAccountChange, by: [.honestStatus],
            "the app ignores the account becoming usable until a relaunch (behaviour 4)"),
        Planted(
            .earlyToggleConsents, by: [.deletionNeedsConsent],
            "an early sync on approves re-uploading after a later deletion (behaviour 5)"),
        Planted(.serverTimesOnFetch, by: [.healedTimesAgree], "fetched records take the server's times (behaviour 6)"),
        Planted(
            .forgetsBatchSize, by: [.boundedRefusals],
            "the reduced batch size is forgotten at the next round (behaviour 7)"),
        Planted(
            .keepsOversizedMerge,
            by: [
                .boundedRefusals, .healedTimesAgree, .convergence, .mergeRule, .honestStatus, .noAcknowledgedWriteLost,
            ],
            "a merge over the record size limit is retried for ever (behaviour 8)"),
        Planted(
            .resolvesOwnEcho, by: [.mergeRule, .noAcknowledgedWriteLost, .convergence],
            "the device's own echo goes to the resolver while an edit is pending (behaviour 12)"),
        Planted(
            .pendingChangeInSecondTransaction,
            by: [.noAcknowledgedWriteLost, .convergence, .mergeRule, .healedTimesAgree],
            "a record and its pending change commit in two transactions"),
        Planted(
            .keepsExpiredZoneToken, by: [.convergence, .healedTimesAgree, .mergeRule, .noAcknowledgedWriteLost],
            "an expired zone token is kept and retried for ever"),
        Planted(
            .saveClearsAnyRevision, by: [.mergeRule, .noAcknowledgedWriteLost, .convergence, .healedTimesAgree],
            "a successful save clears the pending change whatever its revision"),
        Planted(.consentNeverSpent, by: [.deletionNeedsConsent], "the consent to re-upload is never spent"),
        Planted(
            .zoneSavedUnread, by: [.deletionNeedsConsent],
            "the cycle that creates the zone uploads without reading database changes again"),
        Planted(.wrongPauseReason, by: [.honestStatus], "a pause is reported with the wrong reason"),
        Planted(
            .deleteEchoRemovesNewRecord, by: [.noAcknowledgedWriteLost, .convergence],
            "a fetched deletion removes a record this device created again under the deleted name"),
        Planted(
            .archiveLeftAtBinding, by: [.mergeRule, .noAcknowledgedWriteLost],
            "a store that started afresh is bound without bringing back the signed-in account's archive"),
    ]

    @Test("each planted bug is caught within 300 seeds by an invariant that should catch it", arguments: planted)
    func plantedBugIsCaught(_ planted: Planted) async throws {
        try await Self.expectCaught(planted.bug, by: planted.invariants)
    }
}
