import PrivateCloud

/// The seam between a device's container calls and the simulation's seeded scheduler: before each call an
/// ``InterleavingContainer`` asks it whether something else happens first (a user's action, another device's
/// cycle), and after each accepted modify request it tells it what the server accepted.
///
/// Why `@unchecked Sendable` is sound: containers must be `Sendable`, but a simulation runs on one task. The engine
/// spawns no tasks (see `SyncEngine`): every container call it makes is awaited, in order, on the task that called
/// `sync`, which is the simulation's own task. So every call into the scheduler, and through it into the
/// simulation, happens on that one task, one at a time; nothing reaches the simulation concurrently. The reference
/// is cleared when the run ends.
final class Scheduler: @unchecked Sendable {
    /// The simulation to ask; `nil` once the run ended.
    var simulation: Simulation?

    /// Creates a scheduler for a simulation (`nil`: one that schedules nothing and checks nothing, for a test that
    /// puts a single container of the run's chain around an app).
    init(_ simulation: Simulation?) {
        self.simulation = simulation
    }

    /// Called before every container call of a device's app instance.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - instance: The app instance (its launch number) making the call.
    ///   - call: The call's name.
    ///   - sending: The records a modify request carries (or carried, once answered).
    func beforeCall(device: String, instance: Int, call: String, sending: [String] = []) async {
        await simulation?.interject(device: device, instance: instance, call: call, sending: sending)
    }

    /// Called when a call of a device failed as a whole.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - code: The error's code.
    func threw(device: String, code: CloudError.Code) {
        simulation?.noteThrown(device: device, code: code)
    }

    /// Called with the change tags a device's call brought back: of its own accepted saves, and of server versions
    /// it received (fetched, or returned with a conflict).
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - own: (record name, change tag) of saves the server accepted from it.
    ///   - received: (record name, change tag) of server versions it received.
    func tags(device: String, own: [(String, String)], received: [(String, String)]) {
        simulation?.noteTags(device: device, own: own, received: received)
    }

    /// Called after a modify request returned, with the saves the server accepted.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - saved: The records the server accepted, as sent.
    func accepted(device: String, saved: [Record]) {
        simulation?.noteAccepted(device: device, saved: saved)
    }

    /// Called after a modify request returned, with the saves refused for being over CloudKit's record size limit.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - records: The records refused, as sent.
    func sentOversized(device: String, records: [Record]) {
        simulation?.noteOversized(device: device, records: records)
    }

    /// Called with the deletes a device's modify request had accepted, and the deletions a fetch of it returned.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - sent: Records whose delete the server accepted from it.
    ///   - fetched: Records whose deletion a fetch returned to it.
    func deletes(device: String, sent: [String], fetched: [String]) {
        simulation?.noteDeletes(device: device, sent: sent, fetched: fetched)
    }

    /// Called when a modify request's answer refused saves one by one as the server's word on the record
    /// (`serverRejectedRequest`, or `limitExceeded` for the record).
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - names: The records refused.
    func refused(device: String, names: [String]) {
        simulation?.noteRefused(device: device, names: names)
    }

    /// Called as a page of a zone's changes reaches a device's cycle.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - instance: The app instance whose cycle fetched it.
    func fetchedPage(device: String, instance: Int) {
        simulation?.noteFetchedPage(device: device, instance: instance)
    }

    /// Called when a change fetch of a device returned its last page, before the app applies it.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - instance: The app instance that fetched it.
    func fetchedLastPage(device: String, instance: Int) {
        simulation?.noteFetchedLastPage(device: device, instance: instance)
    }

    /// Called as a user-deleted-zone fault strikes a call made for `account`, before the zone goes.
    ///
    /// - Parameter account: The account whose app data the fault deletes.
    func zoneDeletedByFault(account: AccountID) {
        simulation?.noteZoneDeletedByFault(account)
    }

    /// Called when a request of a device succeeded at the server, with who was signed in when it reached it.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - account: The account signed in on the device as the request reached the server, if any.
    ///   - request: The request's name.
    ///   - saving: The records a modify request saved.
    ///   - stamped: The user the server stamped on each record it saved or returned (or answered with).
    func reached(
        device: String, account: AccountID?, request: String, saving: [String],
        stamped: [(name: String, user: UserRecordID)]
    ) {
        simulation?.checkSignedInAccount(
            device: device, account: account, request: request, saving: saving, stamped: stamped)
    }
}
