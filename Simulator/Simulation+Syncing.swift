import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncTesting
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The simulator's sync steps: the cycles an engine asks for, and one cycle with the checks on its result.
extension Simulation {
    // MARK: Syncing

    /// Runs a cycle on every device whose engine asks for one now.
    func syncDue() async {
        for device in devices {
            guard let next = nextRunDate(device), next <= device.clock.now() else { continue }
            await sync(device, force: false, why: "the engine asked")
        }
    }

    /// The chance that a cycle is killed at one of its first ``SimulationPath/cycleCommitWindows`` commits.
    static let cycleCrashRate = 0.05

    /// The chance that a fetched page or a send's answer arms a crash at one of the commits that follow it.
    static let answerCrashRate = 0.3

    /// Notes the paths a cycle took: more than one page fetched, more than one modify request, a crash in one of its
    /// windows.
    private func notePaths(_ device: Device, _ report: SyncReport, crashSwitch: CrashSwitch) {
        if report.requests.count(where: { $0.operation == .recordZoneChanges }) > 1 { reached.insert(.multiPageFetch) }
        if report.requests.count(where: { $0.operation == .modifyRecords && !$0.items.isEmpty }) > 1 {
            reached.insert(.splitSend)
        }
        if report.requests.contains(where: { $0.error == .operationCancelled }) { reached.insert(.requestOvertaken) }
        if report.events.contains(where: { if case .mergeTooLarge = $0 { true } else { false } }) {
            reached.insert(.mergeOverLimit)
        }
        guard crashSwitch.isDown else { return }
        if crashSwitch.diedAtCommit {
            reached.insert(device.cycleCrash ?? .crashInsideLocalWrite)
        } else if let moment = device.crashMoment {
            reached.insert(.crash(at: moment))
        }
    }

    /// One engine cycle on a device, with invariant 6, the pause check of invariant 5 and the refusal bound on its
    /// result. Actions may land between its requests (see ``interject(device:instance:call:)``).
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - force: Whether the user asked (a pull to refresh), past the engine's schedule.
    ///   - why: Why, for the trace.
    /// - Returns: The cycle's report, or `nil` when no cycle ran (one in flight, or sync does not run).
    @discardableResult
    func sync(_ device: Device, force: Bool, why: String) async -> SyncReport? {
        // (A delegate's build whose mirror is open for a consent or a start afresh, inside which this lands, runs no
        // second one: the open mirror holds the folder's lock.)
        guard !device.cycling, device.mirrored == nil, let app = runningApp(device), syncs(app) else { return nil }
        let engine = app.engine
        let instance = device.instance
        let crashSwitch = device.crashSwitch
        let observed = device.observedContainer
        let account = app.device.session.account
        let before = try? engine?.state().totals
        let tallyBefore = observed?.tally ?? ObservedContainer.Tally()
        let refusalsBefore = episodes.refusals(device: device.name)
        let thrownBefore = device.thrown
        let accountUsableAtStart = Self.accountIsUsable(app)
        device.cycling = true
        let era = device.storeEra
        if device.firstSync == .notStarted { device.firstSync = .started }
        device.receivedThisCycle.removeAll()
        device.ownThisCycle.removeAll()
        device.fetchedThisCycle = nil
        device.pageFetchedThisCycle = false
        // Now and then the cycle is killed at one of its own commits, so that every window between two durable
        // steps of a cycle (the binding, the database token, the zone, each page, each batch's results, the
        // outcome) is met in most seeds (issue 24: a crash between a fetch's two transactions was met in 7 of 300
        // seeds).
        device.cycleCrash = nil
        if !healing, depth == 0, !crashSwitch.isArmed, random.chance(Self.cycleCrashRate) {
            let commit = Int(random.next() % UInt64(SimulationPath.cycleCommitWindows))
            crashSwitch.arm(afterCommits: commit)
            device.cycleCrash = .crash(atCycleCommit: commit)
        }
        // Through the app, as an app syncs: its cycle restores the signed-in account's archive before a store that
        // started afresh is bound (6f08a6a). Calling the engine here skipped that, so no sweep checked the fix and
        // the sweep at fae632e lost archived edits (seeds 485 and 8805: issue 28).
        let report =
            runsMirror
            ? await mirroredCycle(device, app: app) ?? SyncReport() : await app.sync(force: force) ?? SyncReport()
        device.cycling = false
        if device.cycleCrash != nil, !crashSwitch.isDown { crashSwitch.disarm() }
        if !crashSwitch.isDown, report.outcome == .succeeded, device.instance == instance,
            let fetched = device.fetchedThisCycle, fetched.era == device.storeEra
        {
            device.fetchedThrough = fetched
        }
        notePaths(device, report, crashSwitch: crashSwitch)
        device.noteFirstSync(report, era: era, pageFetched: device.pageFetchedThisCycle)
        if !crashSwitch.isDown, report.stoppedBecause == nil {
            for (record, tags) in device.ownThisCycle { device.ownTags[record, default: []].formUnion(tags) }
        }
        let tallyAfter = observed?.tally ?? ObservedContainer.Tally()
        // Whether the same app instance is still the running one (nothing relaunched or reconfigured it meanwhile).
        let same = device.instance == instance
        if same {
            accountTally(device)
        } else {
            // The errors the replaced instance met still happened to this device.
            for (code, count) in tallyAfter.errors where count > (tallyBefore.errors[code] ?? 0) {
                device.errorsSeen[code, default: 0] += count - (tallyBefore.errors[code] ?? 0)
            }
        }
        var line = "\(device.name): sync (\(why))"
        if report.ran {
            line +=
                " sent \(report.sentSaves)+\(report.sentDeletes) fetched \(report.fetchedModifications)+\(report.fetchedDeletions)"
            line +=
                " → \(report.outcome?.encoded ?? report.stoppedBecause.map { "stopped:\($0.rawValue)" } ?? "crashed")"
        } else {
            line += " skipped" + (report.skippedBecause.map { " (\($0))" } ?? "")
        }
        trace(same ? line : line + " (an app instance since replaced)")
        markSync(device.name, report, String(line.dropFirst(device.name.count + 2)))
        for event in report.events {
            switch event {
            case .mergeTooLarge(let name):
                mergesTooLarge.insert(name)
                conflicted.insert(name)
                trace(
                    "\(device.name): a merge of \(name.prefix(8)) would exceed the record size limit; the server's side was kept"
                )
            case .conflictResolved(let name):
                conflicted.insert(name)
                // A conflict is met against a version this device had not seen: never its own save's echo.
                if let received = device.receivedThisCycle[name], !received.isEmpty {
                    check(
                        .mergeRule, !received.isSubset(of: device.ownTags[name] ?? []),
                        "\(device.name) resolved a conflict on \(name) against its own save (the echo of change tag \(received.sorted().joined(separator: ", ")))"
                    )
                }
            case .deleteWon(let name): conflicted.insert(name)
            default: break
            }
        }
        if case .paused(.userDeletedZone)? = report.outcome, let account {
            device.learnedDeletion[account.rawValue] = moment
        }
        if crashSwitch.isDown {
            // A cycle that crashed after its first request may have committed its outcome before the crash killed a
            // later commit: a pause for a deletion the consent does not cover, say (one made while the device was
            // off, seeds 4417 and 6487 of the 10,000-seed sweep). The pause the user ended is asserted only until a
            // cycle may have recorded an outcome.
            // (A delegate's build reports no requests: the container's count of calls says it made one.)
            if !report.requests.isEmpty || (runsMirror && tallyAfter.totalCalls > tallyBefore.totalCalls) {
                device.userEndedPause = nil
            }
            if same { noteCrash(device, why: "crashed during the sync") }
            return report
        }
        checkRefusals(device, since: refusalsBefore)
        if report.outcome != nil { device.userEndedPause = nil }
        guard report.ran else { return report }
        if same, case .retrying(let code)? = report.outcome {
            // A cycle's outcome says what is left, not what failed on the way.
            let thrown = device.thrown[code, default: 0] > thrownBefore[code, default: 0]
            let left = pendingChangeCount(app) ?? 0
            // CKSyncEngine's delegate: its engine asks the account's status first, and a cycle of an account that
            // cannot be used ends with the status's error, with no request failing (the app's engine pauses).
            let accountAnswered =
                runsMirror && [.notAuthenticated, .accountTemporarilyUnavailable].contains(code)
                && (!accountUsableAtStart || !Self.accountIsUsable(app))
            check(
                .honestStatus, thrown || left > 0 || accountAnswered,
                "\(device.name): the cycle ended waiting (\(code.name)) although no request failed with it and nothing is left to send"
            )
        }
        let saves = tallyAfter.acceptedSaves - tallyBefore.acceptedSaves
        let deletes = tallyAfter.acceptedDeletes - tallyBefore.acceptedDeletes
        let fetched = tallyAfter.fetchedModifications - tallyBefore.fetchedModifications
        if report.stoppedBecause != nil {
            // A cycle stopped by the user (the switch, starting afresh) applies nothing more, even of an answer the
            // server already gave: it may report less than the container saw, never more.
            check(
                .countersAgree,
                report.sentSaves <= saves && report.sentDeletes <= deletes && report.fetchedModifications <= fetched,
                "\(device.name): a stopped cycle reported \(report.sentSaves)+\(report.sentDeletes) sent and \(report.fetchedModifications) fetched; the container saw \(saves)+\(deletes) and \(fetched)"
            )
            return report
        }
        check(
            .countersAgree, report.sentSaves == saves,
            "\(device.name): the engine reported \(report.sentSaves) saves; the container accepted \(saves)")
        // The mirror's report counts what moved, not the requests refused (nor its totals, nor a `sent` event per
        // batch, below).
        if engine != nil {
            let refused = device.thrown[.limitExceeded, default: 0] - thrownBefore[.limitExceeded, default: 0]
            check(
                .countersAgree, report.refusedRequests == refused,
                "\(device.name): the engine reported \(report.refusedRequests) refused requests; the container refused \(refused)"
            )
        }
        check(
            .countersAgree, report.sentDeletes == deletes,
            "\(device.name): the engine reported \(report.sentDeletes) deletes; the container accepted \(deletes)")
        // The mirror counts a page once it stored it: one its store could not write is fetched again and counted
        // then, and one of an engine it made anew meanwhile not at all, so it may count fewer than came.
        check(
            .countersAgree,
            runsMirror ? report.fetchedModifications <= fetched : report.fetchedModifications == fetched,
            "\(device.name): the engine reported \(report.fetchedModifications) fetched records; the container returned \(fetched)"
        )
        // The rest holds the app engine's own report.
        guard let engine else { return report }
        if same, let before, let after = try? engine.state().totals {
            check(
                .countersAgree,
                after.sentSaves - before.sentSaves == saves && after.sentDeletes - before.sentDeletes == deletes
                    && after.fetchedModifications - before.fetchedModifications == fetched,
                "\(device.name): the engine's totals moved by \(after.sentSaves - before.sentSaves)+\(after.sentDeletes - before.sentDeletes) sent, "
                    + "\(after.fetchedModifications - before.fetchedModifications) fetched; the container saw \(saves)+\(deletes), \(fetched)"
            )
        }
        let sentEvents = report.events.reduce(0) { total, event in
            if case .sent(let saves, let deletes) = event { return total + saves + deletes }
            return total
        }
        check(
            .countersAgree, sentEvents == report.sentSaves + report.sentDeletes,
            "\(device.name): sent events add up to \(sentEvents), the report says \(report.sentSaves + report.sentDeletes)"
        )
        if case .paused(let reason)? = report.outcome {
            let errors = Set(tallyAfter.errors.filter { $0.value > (tallyBefore.errors[$0.key] ?? 0) }.keys)
            let injected: PauseReason? =

                errors.contains(.quotaExceeded)
                ? .quotaExceeded
                : errors.contains(.userDeletedZone)
                    ? .userDeletedZone
                    : errors.contains(.accountTemporarilyUnavailable) ? .accountTemporarilyUnavailable : nil
            if let injected, errors.count == 1 {
                check(
                    .honestStatus, reason == injected,
                    "\(device.name): the cycle met \(injected) but paused with \(reason)")
            }
            // A full iCloud is only ever the server's word, in this cycle.
            check(
                .honestStatus, reason != .quotaExceeded || errors.contains(.quotaExceeded),
                "\(device.name): the cycle paused with quotaExceeded, but the server never said so in it (it said \(errors.map(\.name).sorted()))"
            )
        }
        return report
    }

    /// Adds what the device's current container saw since last time to its lifetime error tally.
    func accountTally(_ device: Device) {
        guard let tally = device.observed.tally else { return }
        for (code, count) in tally.errors where count > (device.seen.errors[code] ?? 0) {
            device.errorsSeen[code, default: 0] += count - (device.seen.errors[code] ?? 0)
        }
        device.seen = tally
    }

    /// Whether the device's account can sync now: one is signed in and available.
    ///
    /// - Parameter app: The app.
    /// - Returns: Whether the account is usable.
    static func accountIsUsable(_ app: LaunchedApp) -> Bool {
        let session = app.device.session.current
        return session.account != nil && session.status == .available
    }
}
