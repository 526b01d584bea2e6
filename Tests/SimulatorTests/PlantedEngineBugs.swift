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

    @Test("planted: a cycle in flight uploads writes made after sync off (behaviour 1)")
    func uploadsAfterSyncOff() async throws {
        try await Self.expectCaught(.uploadsAfterSyncOff, by: [.nothingLeavesWhenOff])
    }

    @Test("planted: a cycle running across start-fresh refills the store with the previous account (behaviour 2)")
    func cycleSurvivesStartFresh() async throws {
        // The old cycle writing anything of the previous account into the fresh store: its records, a pause of its
        // own (a stale cause), or a re-upload to it.
        try await Self.expectCaught(
            .cycleSurvivesStartFresh,
            by: [.accountsNeverMix, .noAcknowledgedWriteLost, .honestStatus, .deletionNeedsConsent])
    }

    @Test("planted: a conflict inside an atomic batch ends the cycle waiting (behaviour 3)")
    func batchConflictFailsCycle() async throws {
        try await Self.expectCaught(.batchConflictFailsCycle, by: [.honestStatus])
    }

    @Test("planted: the app ignores the account becoming usable until a relaunch (behaviour 4)")
    func ignoresAccountChange() async throws {
        try await Self.expectCaught(.ignoresAccountChange, by: [.honestStatus])
    }

    @Test("planted: an early sync on approves re-uploading after a later deletion (behaviour 5)")
    func earlyToggleConsents() async throws {
        try await Self.expectCaught(.earlyToggleConsents, by: [.deletionNeedsConsent])
    }

    @Test("planted: fetched records take the server's times (behaviour 6)")
    func serverTimesOnFetch() async throws {
        try await Self.expectCaught(.serverTimesOnFetch, by: [.healedTimesAgree])
    }

    @Test("planted: the reduced batch size is forgotten at the next round (behaviour 7)")
    func forgetsBatchSize() async throws {
        try await Self.expectCaught(.forgetsBatchSize, by: [.boundedRefusals])
    }

    @Test("planted: a merge over the record size limit is retried for ever (behaviour 8)")
    func keepsOversizedMerge() async throws {
        try await Self.expectCaught(
            .keepsOversizedMerge,
            by: [.healedTimesAgree, .convergence, .mergeRule, .honestStatus, .noAcknowledgedWriteLost])
    }

    @Test("planted: the device's own echo goes to the resolver while an edit is pending (behaviour 12)")
    func resolvesOwnEcho() async throws {
        try await Self.expectCaught(.resolvesOwnEcho, by: [.mergeRule, .noAcknowledgedWriteLost, .convergence])
    }

    @Test("planted: a record and its pending change commit in two transactions")
    func pendingChangeInSecondTransaction() async throws {
        try await Self.expectCaught(
            .pendingChangeInSecondTransaction,
            by: [.noAcknowledgedWriteLost, .convergence, .mergeRule, .healedTimesAgree])
    }

    @Test("planted: an expired zone token is kept and retried for ever")
    func keepsExpiredZoneToken() async throws {
        try await Self.expectCaught(
            .keepsExpiredZoneToken, by: [.convergence, .healedTimesAgree, .mergeRule, .noAcknowledgedWriteLost])
    }

    @Test("planted: a successful save clears the pending change whatever its revision")
    func saveClearsAnyRevision() async throws {
        try await Self.expectCaught(
            .saveClearsAnyRevision, by: [.mergeRule, .noAcknowledgedWriteLost, .convergence, .healedTimesAgree])
    }

    @Test("planted: the consent to re-upload is never spent")
    func consentNeverSpent() async throws {
        try await Self.expectCaught(.consentNeverSpent, by: [.deletionNeedsConsent])
    }

    @Test("planted: a pause is reported with the wrong reason")
    func wrongPauseReason() async throws {
        try await Self.expectCaught(.wrongPauseReason, by: [.honestStatus])
    }
}
