import DeviceStore
import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Simulation {
    /// The user leaves an account and comes back to it, with an edit made in between: the path of the two sweep
    /// failures of issue 28 (seeds 1899 and 4060 at b9b7b91), met on purpose rather than once in 5,000 seeds.
    ///
    /// On a device syncing with its account, the user signs out, edits a record, signs into the other account and
    /// starts afresh with it (the record and its unsent edit go to an archive). Then, half the time, they sign back
    /// into the first account before any cycle (seed 4060); else a cycle binds the store to the other account, they
    /// sign back into the first and start afresh again, and the process is killed at one of that start-fresh's
    /// first three commits: before the removal, between the removal and the restore of the archive (seed 1899), or
    /// after. Whichever it is, the edit must come back and reach the first account's container (invariants 3 and 12).
    func accountRoundTrip(_ device: Device) async {
        guard accounts.count > 1, let app = runningApp(device), syncs(app),
            let handle = try? world.device(device.name), let home = handle.session.account,
            boundUser(app) == home.userRecordID,
            let other = accounts.first(where: { $0 != home })
        else { return }
        let names = device.expected.sorted().filter { name in
            written[name]?.partition == .userCreated
                && (try? app.stores.userCreated.containsRecord(named: name)) == true
        }
        guard !names.isEmpty else { return }
        let name = names[Int(random.next() % UInt64(names.count))]
        moment += 1
        do {
            try handle.signOut()
        } catch {
            return failToRun("\(device.name): signing out failed: \(error)")
        }
        trace("\(device.name): signed out (an account round trip)")
        mark(.account, device.name, "signed out, for a round trip")
        accountChanged(device)
        await userWrite(device, editing: name)
        guard await startAfresh(device, with: other) else { return }
        result.accountRoundTrips += 1
        reached.insert(.accountRoundTrip)
        if random.chance(0.5) {
            signIn(device, home, why: "back before any cycle")
            return
        }
        await sync(device, force: true, why: "bound to \(other)")
        let commits = Int(random.next() % 3)
        device.crashSwitch.arm(afterCommits: commits)
        trace("\(device.name): will crash before local commit #\(commits)")
        let crashes = result.crashes
        _ = await startAfresh(device, with: home)
        if result.crashes > crashes { result.roundTripsKilled += 1 }
    }

    /// Signs `device` into `account` and, when its app pauses for the account change, starts afresh with it.
    ///
    /// - Returns: Whether the start-fresh ran to its end.
    private func startAfresh(_ device: Device, with account: AccountID) async -> Bool {
        signIn(device, account, why: "to start afresh")
        guard let app = device.app, (try? status(of: app))?.pauseReason == .accountChanged else { return false }
        let crashes = result.crashes
        await resolvePause(device, startFresh: true)
        return result.crashes == crashes && result.failure == nil
    }

    /// Signs `device` into `account`, and the app reacts as to any account change.
    private func signIn(_ device: Device, _ account: AccountID, why: String) {
        moment += 1
        do {
            try world.device(device.name).signIn(account)
        } catch {
            return failToRun("\(device.name): signing in failed: \(error)")
        }
        trace("\(device.name): signed into \(account) (\(why))")
        mark(.account, device.name, "signed into \(account)")
        accountChanged(device)
    }
}
