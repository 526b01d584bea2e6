import PrivateCloud
import PrivateCloudFaults

/// Checks every request of a device at the moment it reaches the server, against who is signed in on the device
/// at that moment (invariant 14): a request made with no account signed in must fail; the records a modify request
/// saves must belong to the signed-in account (the simulation knows under which account the user wrote each), and
/// the server must stamp them, and every record a fetch returns, with that account's user.
///
/// It sits just outside the container as the world opens it (and outside a test's double of the network layer),
/// inside everything the app and the scheduler put in the way, so that "when the request was made" is the moment
/// the server sees it: an account change the scheduler lands between a cycle's check of the user and its request is
/// before the request.
final class AccountCheckingContainer: ForwardingContainer {
    let base: any PrivateContainer
    private let session: AccountSession
    private let scheduler: Scheduler
    private let device: String

    /// Wraps a container.
    ///
    /// - Parameters:
    ///   - base: The container as the world opens it.
    ///   - session: The device's account session: calls go to whoever is signed in.
    ///   - scheduler: The run's scheduler, which hands what it saw to the simulation.
    ///   - device: The device's name.
    init(base: any PrivateContainer, session: AccountSession, scheduler: Scheduler, device: String) {
        self.base = base
        self.session = session
        self.scheduler = scheduler
        self.device = device
    }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    ) async throws(CloudError) -> ModifyResult {
        let account = session.account
        let result = try await base.modifyRecords(
            saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        var stamps: [(name: String, user: UserRecordID)] = []
        for case (let id, .success(let record)) in result.saveResults {
            if let user = record.systemFields?.lastModifiedUserRecordID { stamps.append((id.recordName, user)) }
        }
        scheduler.reached(
            device: device, account: account, request: "modifyRecords",
            saving: saving.map(\.recordID.recordName), stamped: stamps)
        return result
    }

    func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError) -> RecordZoneChanges {
        let account = session.account
        let changes = try await base.recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit)
        let stamps = changes.modifications.compactMap { record in
            record.systemFields.map { (name: record.recordID.recordName, user: $0.lastModifiedUserRecordID) }
        }
        scheduler.reached(device: device, account: account, request: "recordZoneChanges", saving: [], stamped: stamps)
        return changes
    }

    func userRecordID() async throws(CloudError) -> UserRecordID {
        let account = session.account
        let user = try await base.userRecordID()
        scheduler.reached(
            device: device, account: account, request: "userRecordID", saving: [], stamped: [("the answer", user)])
        return user
    }
}
