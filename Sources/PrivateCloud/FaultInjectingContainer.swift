import Synchronization

/// A container that injects faults into another's calls, as the network and CloudKit's servers do.
///
/// Each call asks the ``FaultSource`` for a fault first; a call it strikes fails as CloudKit would fail it, and
/// the base container is called only where CloudKit would have acted: a lost response follows an applied write,
/// a user-deleted zone is really deleted from the base, and a non-atomic partial failure applies the other items.
public final class FaultInjectingContainer<Base: PrivateContainer & ICloudSettingsControls>: PrivateContainer,
    ICloudSettingsControls
{
    /// The container faults are injected into.
    public let base: Base
    private let faults: any FaultSource
    private let session: AccountSession?
    private let counts: Mutex<[FaultKind: Int]> = Mutex([:])

    /// Wraps a container.
    ///
    /// - Parameters:
    ///   - base: The container.
    ///   - faults: Decides which calls fail.
    ///   - session: The account session calls are made under, so that faults can be aimed at one account.
    public init(base: Base, faults: any FaultSource, session: AccountSession? = nil) {
        self.base = base
        self.faults = faults
        self.session = session
    }

    public var identifier: ContainerIdentifier { base.identifier }

    /// How many faults of each kind struck so far.
    public var injectedFaults: [FaultKind: Int] { counts.withLock { $0 } }

    /// The fault for `call`, counted, or `nil`.
    private func fault(for call: ContainerCall) -> Fault? {
        guard let fault = faults.nextFault(for: call, account: session?.account) else { return nil }
        counts.withLock { $0[fault.kind, default: 0] += 1 }
        return fault
    }

    /// The error a fault of a kind that fails the whole call produces.
    private func callError(_ fault: Fault, _ what: String) -> CloudError {
        var error = plainError(fault, what)
        error.injectedFault = fault.kind.rawValue
        return error
    }

    private func plainError(_ fault: Fault, _ what: String) -> CloudError {
        switch fault.kind {
        case .networkUnavailable:
            CloudError(.networkUnavailable, "the network is unavailable (injected) during \(what)")
        case .networkFailure: CloudError(.networkFailure, "the connection failed (injected) during \(what)")
        case .serviceUnavailable:
            CloudError(
                .serviceUnavailable, "CloudKit is unavailable (injected) during \(what)", retryAfter: fault.retryAfter)
        case .rateLimited:
            CloudError(.requestRateLimited, "too many requests (injected) during \(what)", retryAfter: fault.retryAfter)
        case .zoneBusy:
            CloudError(.zoneBusy, "the zone is busy (injected) during \(what)", retryAfter: fault.retryAfter)
        case .accountTemporarilyUnavailable:
            CloudError(
                .accountTemporarilyUnavailable, "the account is temporarily unavailable (injected) during \(what)")
        case .quotaExceeded:
            CloudError(.quotaExceeded, "the user's iCloud storage is full (injected) during \(what)")
        case .limitExceeded:
            CloudError(.limitExceeded, "the server refused the request as too large (injected) during \(what)")
        case .tokenExpired:
            CloudError(.changeTokenExpired, "the change token expired (injected) during \(what); fetch from nil")
        case .serverResponseLost:
            CloudError(.serverResponseLost, "the response was lost (injected) after \(what) was applied")
        case .partialFailure, .userDeletedZone:
            CloudError(fault.kind.code, "injected during \(what)")
        }
    }

    // MARK: Calls

    public func accountStatus() async -> AccountStatus {
        await base.accountStatus()
    }

    public func userRecordID() async throws(CloudError) -> UserRecordID {
        if let fault = fault(for: .userRecordID) { throw callError(fault, "fetching the user record ID") }
        return try await base.userRecordID()
    }

    public func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone] {
        if let fault = fault(for: .saveZones) { throw callError(fault, "saving zones") }
        return try await base.saveZones(zones)
    }

    public func deleteZones(_ zoneIDs: [ZoneID]) async throws(CloudError) {
        if let fault = fault(for: .deleteZones) { throw callError(fault, "deleting zones") }
        try await base.deleteZones(zoneIDs)
    }

    public func allZones() async throws(CloudError) -> [RecordZone] {
        if let fault = fault(for: .allZones) { throw callError(fault, "listing zones") }
        return try await base.allZones()
    }

    public func records(for recordIDs: [RecordID]) async throws(CloudError) -> [RecordID: Result<Record, CloudError>] {
        if let fault = fault(for: .fetchRecords) { throw callError(fault, "fetching records") }
        return try await base.records(for: recordIDs)
    }

    public func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    )
        async throws(CloudError) -> ModifyResult
    {
        let what = "a modify request of \(saving.count) save(s) and \(deleting.count) delete(s)"
        guard let fault = fault(for: .modifyRecords(saves: saving.count, deletes: deleting.count)) else {
            return try await base.modifyRecords(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        }
        switch fault.kind {
        case .serverResponseLost:
            _ = try await base.modifyRecords(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
            throw callError(fault, what)
        case .userDeletedZone:
            let zones = Set(saving.map(\.recordID.zoneID) + deleting.map(\.zoneID)).filter { !$0.isDefault }
            for zone in zones.sorted() {
                try? await base.deleteZoneFromICloudSettings(zone)
            }
            return try await base.modifyRecords(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        case .partialFailure:
            return try await partialFailure(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        default:
            throw callError(fault, what)
        }
    }

    /// Fails the request's first item; fails the rest of its zone with `batchRequestFailed` when the request is
    /// atomic there, and applies every other item through the base.
    private func partialFailure(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    )
        async throws(CloudError) -> ModifyResult
    {
        let victim = saving.first?.recordID ?? deleting[0]
        var victimError = CloudError(.serverRejectedRequest, "the server rejected record \(victim) (injected)")
        victimError.injectedFault = FaultKind.partialFailure.rawValue
        let batchFailed = CloudError(
            .batchRequestFailed, "not applied: another item in the atomic batch for zone \(victim.zoneID) failed")
        let failsWithVictim = { (id: RecordID) in
            id == victim || (atomically && !victim.zoneID.isDefault && id.zoneID == victim.zoneID)
        }
        var result = try await base.modifyRecords(
            saving: saving.filter { !failsWithVictim($0.recordID) }, deleting: deleting.filter { !failsWithVictim($0) },
            savePolicy: savePolicy, atomically: atomically)
        for record in saving where failsWithVictim(record.recordID) {
            result.saveResults[record.recordID] = .failure(record.recordID == victim ? victimError : batchFailed)
        }
        for id in deleting where failsWithVictim(id) {
            result.deleteResults[id] = .failure(id == victim ? victimError : batchFailed)
        }
        return result
    }

    public func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    )
        async throws(CloudError) -> RecordZoneChanges
    {
        if let fault = fault(for: .recordZoneChanges(hasToken: token != nil)) {
            guard fault.kind == .userDeletedZone else { throw callError(fault, "fetching changes in \(zoneID)") }
            if !zoneID.isDefault { try? await base.deleteZoneFromICloudSettings(zoneID) }
        }
        return try await base.recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit)
    }

    public func databaseChanges(
        since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError)
        -> DatabaseChanges
    {
        if let fault = fault(for: .databaseChanges) { throw callError(fault, "fetching database changes") }
        return try await base.databaseChanges(since: token, resultsLimit: resultsLimit)
    }

    public func deleteZoneFromICloudSettings(_ zoneID: ZoneID) async throws(CloudError) {
        try await base.deleteZoneFromICloudSettings(zoneID)
    }
}
