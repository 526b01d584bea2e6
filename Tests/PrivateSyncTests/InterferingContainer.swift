import PrivateSyncTesting
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A pass-through container whose calls a test can interfere with, to make a user's action (or a server's answer)
/// land between two requests of one cycle: a hook before a zone is saved, before a zone fetch, after it returned,
/// and before a modify request; a request limit that stays low; a page size for database and for zone changes; and a
/// failure of the n-th database-changes call.
final class InterferingContainer: ForwardingContainer {
    let base: any PrivateContainer
    let databasePageSize: Int?
    let failingDatabaseCall: Int?
    /// The most items a modify request may carry before the server refuses it with `limitExceeded`.
    let itemLimit: Int?
    /// The most changes a page of zone changes holds (the engine asks for CloudKit's default).
    let zonePageSize: Int?
    let beforeAccountStatus = Mutex<(@Sendable () async -> Void)?>(nil)
    let beforeZoneSave = Mutex<(@Sendable () async -> Void)?>(nil)
    let beforeZoneFetch = Mutex<(@Sendable () async -> Void)?>(nil)
    let afterZoneFetch = Mutex<(@Sendable () async -> Void)?>(nil)
    let beforeModify = Mutex<(@Sendable () async -> Void)?>(nil)
    /// Modify requests refused as too large.
    let refused = Mutex(0)
    private let databaseCalls = Mutex(0)

    init(
        base: any PrivateContainer, databasePageSize: Int? = nil, failingDatabaseCall: Int? = nil,
        itemLimit: Int? = nil, zonePageSize: Int? = nil
    ) {
        self.zonePageSize = zonePageSize
        self.base = base
        self.databasePageSize = databasePageSize
        self.failingDatabaseCall = failingDatabaseCall
        self.itemLimit = itemLimit
    }

    /// Takes a one-shot hook, leaving none.
    private static func take(_ hook: borrowing Mutex<(@Sendable () async -> Void)?>) -> (@Sendable () async -> Void)? {
        hook.withLock { hook in
            defer { hook = nil }
            return hook
        }
    }

    func accountStatus() async -> AccountStatus {
        if let hook = Self.take(beforeAccountStatus) { await hook() }
        return await base.accountStatus()
    }

    func saveZones(_ zones: [RecordZone]) async throws(CloudError) -> [RecordZone] {
        if let hook = Self.take(beforeZoneSave) { await hook() }
        return try await base.saveZones(zones)
    }

    func modifyRecords(
        saving: [Record], deleting: [RecordID], savePolicy: SavePolicy, atomically: Bool
    )
        async throws(CloudError) -> ModifyResult
    {
        if let hook = Self.take(beforeModify) { await hook() }
        if let itemLimit, saving.count + deleting.count > itemLimit {
            refused.withLock { $0 += 1 }
            throw CloudError(.limitExceeded, "the request carries more than \(itemLimit) items (test)")
        }
        return try await base.modifyRecords(
            saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: atomically)
    }

    func recordZoneChanges(
        in zoneID: ZoneID, since token: ChangeToken?, resultsLimit: Int?
    ) async throws(CloudError)
        -> RecordZoneChanges
    {
        if let hook = Self.take(beforeZoneFetch) { await hook() }
        let page = try await base.recordZoneChanges(
            in: zoneID, since: token, resultsLimit: zonePageSize ?? resultsLimit)
        if let hook = Self.take(afterZoneFetch) { await hook() }
        return page
    }

    func databaseChanges(since token: ChangeToken?, resultsLimit: Int?) async throws(CloudError) -> DatabaseChanges {
        let call = databaseCalls.withLock { count in
            defer { count += 1 }
            return count
        }
        if call == failingDatabaseCall { throw CloudError(.networkFailure, "the connection failed (test)") }
        return try await base.databaseChanges(since: token, resultsLimit: databasePageSize ?? resultsLimit)
    }
}
