import Synchronization

/// A container that injects faults into another's calls, as the network and CloudKit's servers do.
///
/// Each call asks the ``FaultSource`` for a fault first; a call it strikes fails as CloudKit would fail it, and
/// the base container is called only where CloudKit would have acted: a lost response follows an applied write,
/// a user-deleted zone is really deleted from the base, and a non-atomic partial failure applies the other items.
public final class FaultInjectingContainer<Base: PrivateContainer & ICloudSettingsControls & CloudServerControls>:
    InterceptingContainer, ICloudSettingsControls, CloudServerControls
{
    /// The container faults are injected into.
    public let base: Base
    private let faults: any FaultSource
    private let session: AccountSession?
    /// The device whose calls these are, so that faults can be aimed at one device.
    public let device: String?
    private let counts: Mutex<[FaultKind: Int]> = Mutex([:])

    /// Wraps a container.
    ///
    /// - Parameters:
    ///   - base: The container.
    ///   - faults: Decides which calls fail.
    ///   - session: The account session calls are made under, so that faults can be aimed at one account.
    ///   - device: The device making the calls, so that faults can be aimed at one device.
    public init(base: Base, faults: any FaultSource, session: AccountSession? = nil, device: String? = nil) {
        self.base = base
        self.faults = faults
        self.session = session
        self.device = device
    }

    public var identifier: ContainerIdentifier { base.identifier }

    /// How many faults of each kind struck so far.
    public var injectedFaults: [FaultKind: Int] { counts.withLock { $0 } }

    /// The fault for `call`, naming `records`, counted, or `nil`.
    private func fault(for call: ContainerCall, records: Set<String> = [], saved: Set<String> = []) -> Fault? {
        let target = CallTarget(
            account: session?.account, device: device, recordNames: records, savedRecordNames: saved)
        guard let fault = faults.nextFault(for: call, target: target) else { return nil }
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
        case .zoneNotFound, .encryptedDataReset:
            CloudError(.zoneNotFound, "the zone is gone (injected) during \(what)")
        case .partialFailure, .itemLimitExceeded, .itemQuotaExceeded, .userDeletedZone, .duplicateDelivery,
            .delayedDelivery, .reorderedPages:
            CloudError(fault.kind.code ?? .internalError, "injected during \(what)")
        }
    }

    // MARK: Calls

    /// Every call: asks the fault source first, and hands the call to the base only where CloudKit would act.
    public func intercept(_ call: InterceptedCall) async throws(CloudError) -> InterceptedCall.Reply {
        switch call {
        case .accountStatus:
            break
        case .userRecordID:
            if let fault = fault(for: .userRecordID) { throw callError(fault, "fetching the user record ID") }
        case .saveZones:
            if let fault = fault(for: .saveZones) { throw callError(fault, "saving zones") }
        case .deleteZones:
            if let fault = fault(for: .deleteZones) { throw callError(fault, "deleting zones") }
        case .allZones:
            if let fault = fault(for: .allZones) { throw callError(fault, "listing zones") }
        case .records(let recordIDs):
            if let fault = fault(for: .fetchRecords, records: Set(recordIDs.map(\.recordName))) {
                throw callError(fault, "fetching records")
            }
        case .modifyRecords(let saving, let deleting, let savePolicy, let atomically):
            return .modified(
                try await modifyWithFaults(
                    saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically))
        case .recordZoneChanges(let zoneID, let token, let resultsLimit):
            return .zoneChanges(try await fetchChangesWithFaults(in: zoneID, since: token, resultsLimit: resultsLimit))
        case .databaseChanges:
            if let fault = fault(for: .databaseChanges) { throw callError(fault, "fetching database changes") }
        }
        return try await base.perform(call)
    }

    /// A modify request, as the faults that strike it leave it.
    private func modifyWithFaults(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    )
        async throws(CloudError) -> ModifyResult
    {
        let what = "a modify request of \(saving.count) save(s) and \(deleting.count) delete(s)"
        let named = Set(saving.map(\.recordID.recordName) + deleting.map(\.recordName))
        let saved = Set(saving.map(\.recordID.recordName))
        guard
            let fault = fault(
                for: .modifyRecords(saves: saving.count, deletes: deleting.count), records: named, saved: saved)
        else {
            return try await base.modifyRecords(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        }
        switch fault.kind {
        case .serverResponseLost:
            _ = try await base.modifyRecords(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
            throw callError(fault, what)
        case .userDeletedZone, .zoneNotFound, .encryptedDataReset:
            let zones = Set(saving.map(\.recordID.zoneID) + deleting.map(\.zoneID)).filter { !$0.isDefault }
            for zone in zones.sorted() {
                await removeZone(zone, as: fault.kind)
            }
            return try await base.modifyRecords(
                saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        case .partialFailure, .itemLimitExceeded, .itemQuotaExceeded:
            return try await partialFailure(
                fault, saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
        default:
            throw callError(fault, what)
        }
    }

    /// Removes a zone as a zone fault says: deleted by the user, by the server, or purged by an encrypted-data
    /// reset. A zone already gone stays gone; the call that follows reports it.
    private func removeZone(_ zone: ZoneID, as kind: FaultKind) async {
        switch kind {
        case .zoneNotFound: try? await base.deleteZones([zone])
        case .encryptedDataReset: try? await base.purgeZoneForEncryptedDataReset(zone)
        default: try? await base.deleteZoneFromICloudSettings(zone)
        }
    }

    /// Fails one item (the fault's record when it names one of the request's, else the first save, or the first
    /// delete) with the kind's error; fails the rest of its zone with `batchRequestFailed` when the request is
    /// atomic there, and applies every other item through the base.
    private func partialFailure(
        _ fault: Fault, saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    )
        async throws(CloudError) -> ModifyResult
    {
        let named = fault.record.flatMap { name in
            saving.first(where: { $0.recordID.recordName == name })?.recordID
                ?? deleting.first(where: { $0.recordName == name })
        }
        let victim = named ?? saving.first?.recordID ?? deleting[0]
        var victimError =
            switch fault.kind {
            case .itemLimitExceeded:
                CloudError(.limitExceeded, "record \(victim) is larger than the server accepts (injected)")
            case .itemQuotaExceeded:
                CloudError(.quotaExceeded, "the user's iCloud storage filled before record \(victim) (injected)")
            default: CloudError(.serverRejectedRequest, "the server rejected record \(victim) (injected)")
            }
        victimError.injectedFault = fault.kind.rawValue
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

    /// A change fetch, as the faults that strike it (or its delivery) leave it.
    private func fetchChangesWithFaults(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    )
        async throws(CloudError) -> RecordZoneChanges
    {
        if let fault = fault(for: .recordZoneChanges(hasToken: token != nil)) {
            switch fault.kind {
            case .userDeletedZone, .zoneNotFound, .encryptedDataReset:
                if !zoneID.isDefault { await removeZone(zoneID, as: fault.kind) }
            default:
                throw callError(fault, "fetching changes in \(zoneID)")
            }
        }
        let page = try await base.recordZoneChanges(in: zoneID, since: token, resultsLimit: resultsLimit)
        let names = page.modifications.map(\.recordID.recordName) + page.deletions.map(\.recordID.recordName)
        guard !names.isEmpty, let fault = fault(for: .zoneChangesDelivered(changes: names.count), records: Set(names))
        else { return page }
        return try await deliver(page, with: fault, in: zoneID, since: token)
    }

    /// A page of zone changes as a delivery fault hands it back.
    private func deliver(
        _ page: RecordZoneChanges, with fault: Fault, in zoneID: ZoneID, since token: ChangeToken?
    ) async throws(CloudError) -> RecordZoneChanges {
        var delivered = page
        switch fault.kind {
        case .reorderedPages:
            delivered.modifications.reverse()
            delivered.deletions.reverse()
        case .duplicateDelivery:
            // The token does not advance, so the next fetch returns this page again.
            delivered.changeToken = token ?? page.changeToken.atStart
        case .delayedDelivery:
            let victim =
                fault.record ?? page.modifications.last?.recordID.recordName
                ?? page.deletions.last?.recordID.recordName
            // The change becomes visible after this fetch, and the server's list of changed zones then names its
            // zone for every database token taken before: that of the engine that fetched (taken before this page),
            // and that of any engine resumed later from a state kept before (an engine that fetches only the zones
            // the database reports, as CKSyncEngine does, learns of it there). Announced first: when it cannot be
            // (the database could not be written), nothing is withheld, rather than hide the change for good.
            do {
                try await base.announceChangesBecameVisible(after: page.changeToken)
            } catch {
                return page
            }
            // Walk the page one change at a time, keeping what comes before the withheld change and the token
            // just before it, so that the next fetch starts with it.
            delivered = RecordZoneChanges(
                modifications: [], deletions: [], changeToken: token ?? page.changeToken.atStart,
                moreComing: false)
            var cursor = token
            while true {
                let step = try await base.recordZoneChanges(in: zoneID, since: cursor, resultsLimit: 1)
                let names = step.modifications.map(\.recordID.recordName) + step.deletions.map(\.recordID.recordName)
                if names.isEmpty || names.contains(where: { $0 == victim }) { break }
                delivered.modifications += step.modifications
                delivered.deletions += step.deletions
                delivered.changeToken = step.changeToken
                cursor = step.changeToken
                if !step.moreComing { break }
            }
        default:
            break
        }
        return delivered
    }

    public func deleteZoneFromICloudSettings(_ zoneID: ZoneID) async throws(CloudError) {
        try await base.deleteZoneFromICloudSettings(zoneID)
    }

    public func purgeZoneForEncryptedDataReset(_ zoneID: ZoneID) async throws(CloudError) {
        try await base.purgeZoneForEncryptedDataReset(zoneID)
    }

    public func announceChangesBecameVisible(after token: ChangeToken) async throws(CloudError) {
        try await base.announceChangesBecameVisible(after: token)
    }
}
