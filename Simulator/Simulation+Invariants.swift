import DeviceStore
import PartitionMirror
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import PrivateSyncTesting
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Simulation {
    // MARK: During the run

    /// The checks made after every step.
    func checkStep() {
        checkContainers()
        for device in devices where result.failure == nil { checkStatus(device) }
        for device in devices where result.failure == nil { checkHeld(device) }
        for device in devices where result.failure == nil { checkFetchedHeld(device) }
    }

    /// Notes that a page of the zone's changes reached a device's cycle: the store it began on was bound before it
    /// asked (``FirstSyncSeen/fetched``).
    ///
    /// - Parameters:
    ///   - name: The device.
    ///   - instance: The app instance whose cycle fetched it.
    func noteFetchedPage(device name: String, instance: Int) {
        // Only a delegate's build needs it: the app engine's report lists its requests.
        guard runsMirror, let device = devices.first(where: { $0.name == name }), device.instance == instance,
            let app = device.app
        else { return }
        // CKSyncEngine's engine fetches for the account signed in, paused or not; its delegate keeps a page only for
        // the data's account (the app's engine sends no request for another).
        if signedIntoTheDataAccount(app) { device.pageFetchedThisCycle = true }
    }

    /// Notes what the bound account's container holds as a device's fetch returns its last page: once the cycle
    /// succeeds, its change token says the device has all of it. (A delegate's build fetches for another account
    /// than the data's too, paused, and keeps nothing of it: only a fetch for the data's account says so.)
    func noteFetchedLastPage(device name: String, instance: Int) {
        guard let device = devices.first(where: { $0.name == name }), device.instance == instance,
            !runsMirror || device.app.map(signedIntoTheDataAccount) == true,
            let account = try? world.device(name).session.account,
            let records = try? world.containerRecords(account: account)
        else { return }
        device.fetchedThisCycle = (device.storeEra, Set(records.map(\.recordID.recordName)))
    }

    /// Invariant 3, for what other devices wrote: a device holds every record its account's container held when its
    /// last successful cycle's fetch ended, unless a user deleted it since. A fetch that commits its token before
    /// the records it fetched (a crash in between) passes every other check until the heal, and a reinstall or a
    /// start afresh before it erases the evidence (issue 24: the one device that lost data later switched account
    /// and was reinstalled), so this runs after every step and right before those steps.
    func checkFetchedHeld(_ device: Device) {
        guard let fetched = device.fetchedThrough, fetched.era == device.storeEra, let app = device.app,
            let held = try? app.stores.userCreated.recordNames()
        else { return }
        let missing = fetched.names.subtracting(held).subtracting(deleted)
        check(
            .noAcknowledgedWriteLost, missing.isEmpty,
            "\(device.name) lacks \(missing.count) record(s) its account's container held when its last successful fetch ended (\(missing.sorted().prefix(3).joined(separator: ", "))): its change token claims what its store does not hold"
        )
    }

    /// Invariants 1 and 2: every record in every container is user-created, and was written under that account.
    func checkContainers() {
        for account in accounts {
            let records: [Record]
            do {
                records = try world.containerRecords(account: account)
            } catch {
                return fail(.localOnlyStaysHome, "\(account)'s container cannot be read: \(error)")
            }
            checkDeletion(of: account, holding: records)
            for record in records {
                let name = record.recordID.recordName
                checkNotHeldBack(record, account: account)
                check(
                    .localOnlyStaysHome, world.partition.partition(of: record.recordType) == .userCreated,
                    "\(account)'s container holds \(record.recordType) \(name), which is not a user-created type")
                if let origin = written[name]?.account {
                    check(
                        .accountsNeverMix, origin == account,
                        "\(account)'s container holds \(record.recordType) \(name), written under \(origin)")
                }
            }
        }
    }

    /// Invariant 8 on one account's container: records the user deleted from iCloud come back only with consent.
    func checkDeletion(of account: AccountID, holding records: [Record]) {
        let names = Set(records.map(\.recordID.recordName))
        guard let deletion = zoneDeletions[account.rawValue] else { return }
        let back = names.intersection(deletion.names)
        guard !back.isEmpty else { return }
        let consenting = devices.filter { device in
            guard let learned = device.learnedDeletion[account.rawValue], learned >= deletion.moment,
                let consent = device.consentAt
            else { return false }
            return consent > learned
        }
        check(
            .deletionNeedsConsent, !consenting.isEmpty,
            "\(back.count) record(s) the user deleted from \(account)'s iCloud (\(back.sorted().prefix(3).joined(separator: ", "))) came back, "
                + "though no device was turned on after learning of the deletion")
        if !consenting.isEmpty { zoneDeletions[account.rawValue] = nil }
    }

    /// Notes when a device first knows of a deletion of its account's app data (its engine recorded the pause), for
    /// invariant 8.
    func noteLearned(_ device: Device, facts: SyncFacts) {
        let (pause, bound) = deletionFacts(device, facts)
        guard pause == .userDeletedZone, let account = accounts.first(where: { $0.userRecordID == bound })
        else { return }
        let since = zoneDeletions[account.rawValue]?.moment ?? 0
        if (device.learnedDeletion[account.rawValue] ?? -1) < since {
            device.learnedDeletion[account.rawValue] = moment
        }
    }

    /// Invariant 5: the status is exactly what the simulator's own model (``StatusOracle``) computes from the facts;
    /// it never reads on while sync cannot run, and a pause has a cause that really happened.
    func checkStatus(_ device: Device) {
        guard let app = device.app else { return }
        let status: SyncStatus
        let facts: SyncFacts
        do {
            facts = try app.facts()
            status = try options.hooks.status?(app) ?? SyncStatus.derive(from: facts)
        } catch {
            return fail(.honestStatus, "\(device.name): the status cannot be read: \(error)")
        }
        sampleStatus(device.name, status)
        noteLearned(device, facts: facts)
        checkFirstSync(device, status: status)
        let expected = StatusOracle.expected(facts)
        check(
            .honestStatus,
            expected.state == status.state && expected.pending == status.pendingChanges
                && expected.fallback == status.fallbackOccurred,
            "\(device.name): status is \(status) (fallback \(status.fallbackOccurred)); the facts call for \(expected)")
        if let ended = device.userEndedPause {
            check(
                .honestStatus, status.pauseReason != ended,
                "\(device.name): status is \(status), a pause the user ended by turning sync on, and no cycle has run since"
            )
        }
        if case .on(.waiting(_, let next?)) = status.state {
            // A retry on another day than the device's today shows its date, not only a time of day.
            let day = { (date: Date) in (date.timeIntervalSince1970 / 86_400).rounded(.down) }
            let today = day(app.environment.clock.now()) == day(next)
            check(
                .honestStatus, today || status.copy.contains(" again on "),
                "\(device.name): the retry is due on another day but the copy reads \"\(status.copy)\"")
        }
        guard result.failure == nil else { return }
        checkSyncRunsWhenItCan(device, app: app, status: status)
        guard result.failure == nil else { return }
        checkCause(device, app: app, facts: facts)
    }

    /// Whether the facts the simulator can see for itself, none of them the app's records, allow sync on a device:
    /// the user's preference is on, the installed build has the entitlement for the world's container, an account
    /// is signed in and available, and the app's Application Support folder exists (the launch creates it; the
    /// simulator never makes its creation fail). When they do, the running app must have its engine: no launch, no
    /// reconfiguration, may leave it without one (issue 24: a launch that created the folder, then ran with no
    /// engine and no fallback recorded, read "paused (storeCreationFailed)", and the old check accepted the reason
    /// whenever sync was wanted and no engine ran).
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - app: Its running app.
    /// - Returns: Whether sync can run, and if not, which fact stops it.
    func syncIsPossible(_ device: Device, app: LaunchedApp) -> (possible: Bool, why: String) {
        guard let handle = try? world.device(device.name) else { return (false, "the device cannot be read") }
        guard (try? handle.syncPreference()) == true else { return (false, "the user's preference is off") }
        if let missing = handle.entitlements.missingEntitlement(for: world.containerIdentifier) {
            return (false, "the build lacks \(missing)")
        }
        guard handle.session.account != nil, handle.session.status == .available else {
            return (false, "the account is \(handle.session.status)")
        }
        guard app.device.appGroup.hasApplicationSupport else { return (false, "Application Support is missing") }
        return (true, "")
    }

    /// Invariant 5, from the facts alone: when ``syncIsPossible(_:app:)``, the app runs its engine and the status
    /// names no launch-time cause (a missing entitlement or store, an account problem) and no fallback.
    private func checkSyncRunsWhenItCan(_ device: Device, app: LaunchedApp, status: SyncStatus) {
        guard syncIsPossible(device, app: app).possible else { return }
        let launchCauses: Set<PauseReason> = [
            .missingEntitlement, .storeCreationFailed, .noAccount, .accountRestricted,
        ]
        check(
            .honestStatus, syncs(app) && !(status.pauseReason.map(launchCauses.contains) ?? false),
            "\(device.name): the preference is on, the build is entitled, the account is available and the store folder exists, yet \(syncs(app) ? "the engine runs" : "no engine runs") and the status is \(status)"
        )
    }

    /// Invariant 5, the second side: a status that is not on names a cause that holds now, or really happened.
    private func checkCause(_ device: Device, app: LaunchedApp, facts: SyncFacts) {
        guard let status = try? options.hooks.status?(app) ?? SyncStatus.derive(from: facts) else { return }
        let session = app.device.session.current
        check(
            .honestStatus, status.fallbackOccurred == (status.pauseReason != nil),
            "\(device.name): the fallback flag is \(status.fallbackOccurred) while the status is \(status)")
        if status.isOn {
            var problems: [String] = []
            if !app.record.syncWanted { problems.append("the user did not ask for sync") }
            if app.record.userCreatedStore != .cloud || !syncs(app) {
                problems.append("the user-created store is local")
            }
            if let reason = app.record.fallbackReason { problems.append("the launch fell back (\(reason))") }
            if session.status != .available || session.account == nil {
                problems.append("the account is \(session.status)")
            }
            if let bound = facts.boundUser, bound != session.account?.userRecordID {
                problems.append("another account is signed in")
            }
            if let pause = facts.enginePause { problems.append("the engine paused (\(pause))") }
            if case .paused(let reason)? = facts.lastOutcome { problems.append("the last attempt paused (\(reason))") }
            check(
                .honestStatus, problems.isEmpty,
                "\(device.name): status reads \(status) although \(problems.joined(separator: ", "))")
            return
        }
        guard let reason = status.pauseReason else { return }
        let launchReason = app.record.fallbackReason
        let bound = facts.boundUser
        let justified: Bool =
            switch reason {
            case .missingEntitlement, .storeCreationFailed:
                launchReason == reason
                    || (reason == .storeCreationFailed && app.record.syncWanted && !syncs(app)
                        && !syncIsPossible(device, app: app).possible)
            // An account cause holds now; a reason the server gave (9, 36) was really given to this device.
            case .noAccount:
                session.account == nil || session.status == .noAccount
                    || (launchReason != .noAccount && device.errorsSeen[.notAuthenticated] != nil)
            case .accountRestricted:
                session.status == .restricted
            case .accountTemporarilyUnavailable:
                session.status == .temporarilyUnavailable || session.status == .couldNotDetermine
                    || (launchReason != .accountTemporarilyUnavailable
                        && device.errorsSeen[.accountTemporarilyUnavailable] != nil)
            case .accountChanged:
                bound != nil && bound != session.account?.userRecordID
            case .userDeletedZone:
                accounts.contains {
                    $0.userRecordID == bound
                        && (faults.struck(.userDeletedZone, account: $0) || appDataDeleted.contains($0.rawValue))
                }
            case .quotaExceeded:
                device.errorsSeen[.quotaExceeded] != nil
            case .containerUnusable:
                device.errorsSeen[.internalError] != nil
            }
        check(
            .honestStatus, justified,
            "\(device.name): status is paused (\(reason)) with no such cause now (account \(session.account?.rawValue ?? "none"), \(session.status))"
        )
    }

    /// Invariant 3, first half: every record written on a device (and not deleted anywhere) is still on it, in its
    /// stores or in an archive.
    func checkHeld(_ device: Device) {
        if let previous = device.freshFrom, let app = device.app,
            (try? app.facts())?.boundUser == previous
        {
            // The store went back to that account (signed back in before it bound to the new one): its records
            // belong here again.
            device.freshFrom = nil
        }
        if let previous = device.freshFrom, let app = device.app {
            // After starting afresh, the active store holds none of the previous account's records.
            let strays = ((try? app.stores.userCreated.origins()) ?? []).filter {
                $0.origin == previous && !device.addedSinceFresh.contains($0.name)
            }
            check(
                .accountsNeverMix, strays.isEmpty,
                "\(device.name) started afresh, yet its active store holds \(strays.count) record(s) of the previous account (\(strays.prefix(3).map(\.name).joined(separator: ", ")))"
            )
        }
        guard let app = device.app, !device.expected.isEmpty else { return }
        let passed: HeldCheck
        do {
            passed = HeldCheck(
                userCreated: try app.stores.userCreated.recordNames(),
                localOnly: try app.stores.localOnly.recordNames(),
                expected: device.expected, deleted: deleted)
        } catch {
            return failToRun("\(device.name): the stores cannot be read: \(error)")
        }
        // The same sets as at the last check that passed (most steps change none of them): it passes again.
        if let last = device.lastHeldCheck, last.sets.hasSameSets(as: passed) {
            return result.invariantChecks += last.checked
        }
        // In name order (for a stable first failure) only when a name is missing: nearly every step misses none.
        if passed.everyExpectedNameIsHeld {
            let checked = passed.checkedCount
            device.lastHeldCheck = (passed, checked)
            return result.invariantChecks += checked
        }
        for name in device.expected.sorted() where !deleted.contains(name) {
            result.invariantChecks += 1
            if passed.isHeld(name) { continue }
            // Archives change only when the user starts afresh or reinstalls, so they are read once between those.
            // (A delegate's build also restores an archive of the account signed in whenever its mirror opens.)
            if device.archivedNames == nil || runsMirror { device.archivedNames = archivedNames(app) }
            // Only an archive of another account than the one the store is bound to: the bound account's archive
            // is never restored again, so a record left there is lost to the user (the planted
            // archive-left-at-binding; the sweep at fae632e, seeds 485 and 8805: issue 28).
            let bound = boundAccountName(app)
            // A delegate's build's start afresh killed midway is finished, its bound account's archive brought back,
            // when its mirror next makes its engine (seed 1934 of that build): until then that archive holds the
            // record too.
            let restoring = runsMirror && MirroredApp.bookkeeping(of: app.device)?.archivePendingFor != nil
            if device.archivedNames!.contains(where: { ($0.key != bound || restoring) && $0.value.contains(name) }) {
                continue
            }
            let type = written[name]?.type ?? "record"
            return fail(
                .noAcknowledgedWriteLost, "\(device.name) lost \(type) \(name), written there and never deleted")
        }
    }

    /// The names each archive of this device holds, by the account it was made for (the record name in its file
    /// name, `UserCreated-<account>-<n>.store`).
    private func archivedNames(_ app: LaunchedApp) -> [String: Set<String>] {
        var names: [String: Set<String>] = [:]
        for archive in archiveFiles(in: app.device.appGroup.archives) ?? [] {
            for entry in (try? StoreFileReader.origins(inStoreFile: archive.path)) ?? [] {
                names[archive.account, default: []].insert(entry.name)
            }
        }
        return names
    }

    /// The archive files in a device's archives folder, in name order, each with the account it was made for (the
    /// record name in its file name, `UserCreated-<account>-<n>.store`); empty when there is no folder, nil when it
    /// cannot be read.
    func archiveFiles(in folder: String) -> [(account: String, path: String)]? {
        guard FileSystem.isDirectory(folder) else { return [] }
        guard let files = try? FileSystem.contents(ofDirectory: folder) else { return nil }
        return files.sorted().filter { $0.hasPrefix("UserCreated-") && $0.hasSuffix(".store") }.map { file in
            let stem = file.dropFirst("UserCreated-".count).dropLast(".store".count)
            return (String(stem[..<(stem.lastIndex(of: "-") ?? stem.endIndex)]), folder + "/" + file)
        }
    }

    // MARK: The heal

    /// Faults stop, accounts recover, users act on their pauses, and every device syncs until a round moves
    /// nothing; then the end-of-run invariants.
    func heal() async {
        healing = true
        step += 1
        trace("heal: faults stop; accounts become available; users act on pauses")
        mark(.world, nil, "heal: faults stop; accounts become available; users act on pauses")
        faults.setEnabled(false)
        if let episode = lowLimitEpisode {
            // A low limit ends with the other faults; expired tokens stay expired (a server never honours them again).
            episodes.setLowLimit(nil, for: episode.account)
            lowLimitEpisode = nil
        }
        for device in devices {
            if let handle = try? world.device(device.name), handle.session.account != nil,
                handle.session.status != .available
            {
                try? handle.setAccountStatus(.available)
                accountChanged(device)
            }
            if device.app == nil { launch(device, why: "opened for the heal") }
        }
        for round in 0..<3 {
            for device in devices {
                guard let app = device.app, let reason = try? status(of: app).pauseReason else { continue }
                if reason == .userDeletedZone || reason == .quotaExceeded { await resolvePause(device) }
            }
            // Before anything is forced: the forced syncs below would hide an engine that stopped asking to run.
            if round == 0 { await checkLiveness() }
            guard result.failure == nil else { return }
            var quiet = false
            for _ in 0..<40 where !quiet && result.failure == nil {
                step += 1
                clock.advance(by: 60)
                var moved = 0
                for device in devices {
                    if runsMirror {
                        moved += await healingCycleMoved(device)
                        continue
                    }
                    // A device where sync does not run moves nothing; one that crashed (and was relaunched) counts
                    // as having moved, so that another round follows.
                    guard let before = device.app?.engine.flatMap({ try? $0.state().totals }) else { continue }
                    let crashes = result.crashes
                    await sync(device, force: true, why: "heal")
                    if let after = device.app?.engine.flatMap({ try? $0.state().totals }), result.crashes == crashes {
                        moved +=
                            (after.sentSaves - before.sentSaves) + (after.sentDeletes - before.sentDeletes)
                            + (after.fetchedModifications - before.fetchedModifications)
                            + (after.fetchedDeletions - before.fetchedDeletions)
                    } else {
                        moved += 1
                    }
                }
                quiet = moved == 0
            }
        }
        guard result.failure == nil else { return }
        checkStep()
        // The checks below cover devices whose status is on; one whose facts allow sync must be among them.
        for device in devices where result.failure == nil {
            guard let app = device.app, syncIsPossible(device, app: app).possible, let status = try? status(of: app)
            else { continue }
            check(
                .liveness, status.isOn || status.pauseReason == .accountChanged,
                "\(device.name): after the heal its facts allow sync (preference on, entitled, account available, store folder present), yet the status is \(status)"
            )
        }
        for device in devices where result.failure == nil { checkHealed(device) }
        if result.failure == nil { checkHealedTogether() }
    }

    /// Invariant 3, second half, and invariant 4, for a device that syncs after the heal.
    private func checkHealed(_ device: Device) {
        guard let app = device.app, let status = try? status(of: app), status.isOn, let bound = boundUser(app),
            let account = accounts.first(where: { $0.userRecordID == bound })
        else { return }
        let container: [String: [String: FieldValue]]
        let local: [String: [String: FieldValue]]
        do {
            // A record the server refused for good stays as it is on a delegate's build (``noteRefused``), the
            // server's copy too, if it has one.
            let records = try app.stores.userCreated.records()
            let refused = Set(records.filter { holdsAsRefused(device, $0) }.map(\.name))
            container = Dictionary(
                uniqueKeysWithValues: try world.containerRecords(account: account).filter {
                    !refused.contains($0.recordID.recordName)
                }.map { record in
                    var fields = record.fields
                    for key in Schema.reservedFieldNames { fields[key] = nil }
                    return (record.recordID.recordName, fields)
                })
            local = Dictionary(
                uniqueKeysWithValues: records.filter {
                    ($0.origin == nil || $0.origin == bound) && !refused.contains($0.name)
                }.map { ($0.name, $0.fields) })
        } catch {
            return fail(.convergence, "\(device.name): cannot read the records: \(error)")
        }
        // A record's account is the one it was written under, or, for one written with no account, the account it
        // was first sent to (the engine stamps it then); records archived for another account are not this one's.
        for name in device.expected.sorted() where !deleted.contains(name) {
            guard let entry = written[name], entry.partition == .userCreated,
                entry.account == nil || entry.account == account, local[name] != nil
            else { continue }
            check(
                .noAcknowledgedWriteLost, container[name] != nil,
                "\(entry.type) \(name), written on \(device.name), never reached \(account)'s container although sync is on"
            )
        }
        if local != container {
            let missing = container.keys.filter { local[$0] == nil }.sorted()
            let extra = local.keys.filter { container[$0] == nil }.sorted()
            let differing = local.keys.filter { container[$0] != nil && container[$0] != local[$0] }.sorted()
            fail(
                .convergence,
                "\(device.name) differs from \(account)'s container: \(missing.count) missing (\(missing.prefix(3).joined(separator: ", "))), "
                    + "\(extra.count) extra (\(extra.prefix(3).joined(separator: ", "))), \(differing.count) with other values "
                    + "(\(differing.prefix(3).joined(separator: ", ")))")
        } else {
            result.invariantChecks += 1
        }
    }
}
