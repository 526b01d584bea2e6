/// A kind of fault a ``FaultInjectingContainer`` can inject, named as on the command line.
public enum FaultKind: String, CaseIterable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Any call fails with `networkUnavailable` (3).
    case networkUnavailable = "network-unavailable"
    /// Any call fails with `networkFailure` (4).
    case networkFailure = "network-failure"
    /// Any call fails with `serviceUnavailable` (6) and a retry-after.
    case serviceUnavailable = "service-unavailable"
    /// Any call fails with `requestRateLimited` (7) and a retry-after.
    case rateLimited = "rate-limited"
    /// A zone's record call fails with `zoneBusy` (23) and a retry-after.
    case zoneBusy = "zone-busy"
    /// Any call fails with `accountTemporarilyUnavailable` (36).
    case accountTemporarilyUnavailable = "account-temporarily-unavailable"
    /// A modify request that saves fails with `quotaExceeded` (25): the user's iCloud storage is full.
    case quotaExceeded = "quota-exceeded"
    /// A modify request is applied, then its response is lost: `serverResponseLost` (34).
    case serverResponseLost = "server-response-lost"
    /// One item of a modify request fails with `serverRejectedRequest` (15); the rest of its zone fail with
    /// `batchRequestFailed` (22) when atomic, or are applied when not.
    case partialFailure = "partial-failure"
    /// A modify request of more than one item fails with `limitExceeded` (27), as the server may below its limits.
    case limitExceeded = "limit-exceeded"
    /// The user deletes the app's data from iCloud settings just before a zone call: the call, and every later
    /// one on that zone, sees `userDeletedZone` (28) until the zone is created again.
    case userDeletedZone = "user-deleted-zone"
    /// A change fetch with a token fails with `changeTokenExpired` (21).
    case tokenExpired = "token-expired"
    /// Like ``partialFailure``, but the item fails with `limitExceeded` (27), as a record too large does.
    case itemLimitExceeded = "item-limit-exceeded"
    /// Like ``partialFailure``, but the item fails with `quotaExceeded` (25): the user's storage filled mid-batch.
    case itemQuotaExceeded = "item-quota-exceeded"
    /// The server deletes the zone just before a zone call (not the user, not the app): database changes report
    /// it as `deleted`, and the call, and every later one on that zone, sees `zoneNotFound` (26) until the zone
    /// is created again.
    case zoneNotFound = "zone-not-found"
    /// The account's encryption keys are reset just before a zone call: the zone is purged, database changes
    /// report it as `encryptedDataReset`, and calls on it see `zoneNotFound` (26) until it is created again.
    case encryptedDataReset = "encrypted-data-reset"
    /// A page of zone changes is delivered twice: the token handed back does not advance, so the next fetch
    /// returns the same page again.
    case duplicateDelivery = "duplicate-delivery"
    /// A change is withheld from a page of zone changes (the named record's, or the page's last record's): the
    /// page stops just before it, with `moreComing` false, so it appears only in a later fetch. Each strike
    /// withholds it from one fetch. The database's changes then name the zone again for every token taken before,
    /// as the server's list does once the change shows (`CloudServerControls`).
    case delayedDelivery = "delayed-delivery"
    /// A page of zone changes arrives with its records, and its deletions, in reverse order.
    case reorderedPages = "reordered-pages"

    public var description: String { rawValue }

    public static func < (lhs: FaultKind, rhs: FaultKind) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The CloudKit error code the fault produces; `nil` for delivery faults, which change what a fetch returns
    /// rather than fail it.
    public var code: CloudError.Code? {
        switch self {
        case .networkUnavailable: .networkUnavailable
        case .networkFailure: .networkFailure
        case .serviceUnavailable: .serviceUnavailable
        case .rateLimited: .requestRateLimited
        case .zoneBusy: .zoneBusy
        case .accountTemporarilyUnavailable: .accountTemporarilyUnavailable
        case .quotaExceeded: .quotaExceeded
        case .serverResponseLost: .serverResponseLost
        case .partialFailure: .partialFailure
        case .limitExceeded: .limitExceeded
        case .userDeletedZone: .userDeletedZone
        case .tokenExpired: .changeTokenExpired
        case .itemLimitExceeded, .itemQuotaExceeded: .partialFailure
        case .zoneNotFound, .encryptedDataReset: .zoneNotFound
        case .duplicateDelivery, .delayedDelivery, .reorderedPages: nil
        }
    }

    /// Whether the fault changes what a change fetch delivers, rather than failing a call.
    public var isDelivery: Bool {
        self == .duplicateDelivery || self == .delayedDelivery || self == .reorderedPages
    }

    /// Whether the fault fails one item of a modify request, and applies the others.
    public var isPerItem: Bool {
        self == .partialFailure || self == .itemLimitExceeded || self == .itemQuotaExceeded
    }

    /// The Swift name of the kind, as `TestWorld.inject` takes it (`.zoneNotFound` for `zone-not-found`).
    public var swiftName: String {
        var name = ""
        var upper = false
        for character in rawValue {
            if character == "-" {
                upper = true
            } else {
                name += upper ? character.uppercased() : String(character)
                upper = false
            }
        }
        return name
    }

    /// Whether CloudKit attaches a retry-after to this fault's error.
    public var hasRetryAfter: Bool {
        self == .serviceUnavailable || self == .rateLimited || self == .zoneBusy
    }

    /// Whether the fault can strike `call`.
    public func applies(to call: ContainerCall) -> Bool {
        switch (self, call) {
        // Only delivery faults meet a delivered page; asking about one must not strike (or draw for) any other.
        case (_, .zoneChangesDelivered(let changes)): isDelivery && changes > 0
        case (.networkUnavailable, _), (.networkFailure, _), (.serviceUnavailable, _), (.rateLimited, _),
            (.accountTemporarilyUnavailable, _):
            true
        case (.zoneBusy, .modifyRecords), (.zoneBusy, .recordZoneChanges): true
        case (.quotaExceeded, .modifyRecords(let saves, _)): saves > 0
        case (.serverResponseLost, .modifyRecords(let saves, let deletes)): saves + deletes > 0
        case (.partialFailure, .modifyRecords(let saves, let deletes)): saves + deletes > 0
        case (.limitExceeded, .modifyRecords(let saves, let deletes)): saves + deletes > 1
        case (.userDeletedZone, .modifyRecords(let saves, let deletes)): saves + deletes > 0
        case (.userDeletedZone, .recordZoneChanges): true
        case (.tokenExpired, .recordZoneChanges(let hasToken)): hasToken
        case (.itemLimitExceeded, .modifyRecords(let saves, _)), (.itemQuotaExceeded, .modifyRecords(let saves, _)):
            saves > 0
        case (.zoneNotFound, .modifyRecords(let saves, let deletes)),
            (.encryptedDataReset, .modifyRecords(let saves, let deletes)):
            saves + deletes > 0
        case (.zoneNotFound, .recordZoneChanges), (.encryptedDataReset, .recordZoneChanges): true
        default: false
        }
    }
}

/// A call to a container, as a fault source sees it.
public enum ContainerCall: Sendable, Hashable {
    /// `userRecordID()`: who is signed in.
    case userRecordID
    /// `saveZones(_:)`.
    case saveZones
    /// `deleteZones(_:)`.
    case deleteZones
    /// `allZones()`.
    case allZones
    /// `records(for:)`: records fetched by identifier.
    case fetchRecords
    /// `modifyRecords(saving:deleting:…)`, with how many records it saves and deletes.
    case modifyRecords(saves: Int, deletes: Int)
    /// `recordZoneChanges(in:since:…)`, and whether it passes a change token (`false`: from the start).
    case recordZoneChanges(hasToken: Bool)
    /// `databaseChanges(since:)`.
    case databaseChanges
    /// A page of zone changes about to be handed back, holding `changes` records and deletions: only delivery
    /// faults apply to it.
    case zoneChangesDelivered(changes: Int)
}

/// Who makes a call and what it names, so that a fault can be aimed at one device or one record.
public struct CallTarget: Sendable, Hashable {
    /// The account the call is made for, when one is signed in.
    public var account: AccountID?
    /// The device making it, when the container knows (a world's containers do).
    public var device: String?
    /// The names of the records the call saves, deletes or fetches, or that a delivered page holds.
    public var recordNames: Set<String>
    /// The names of the records the call saves: those of ``recordNames`` a fault about a record's values (a record
    /// the server refuses) may aim at, and a delete may not.
    public var savedRecordNames: Set<String>

    /// Creates a target.
    ///
    /// - Parameters:
    ///   - account: The account, if any.
    ///   - device: The device, if known.
    ///   - recordNames: The records the call names.
    ///   - savedRecordNames: The records among them the call saves.
    public init(
        account: AccountID?, device: String? = nil, recordNames: Set<String> = [], savedRecordNames: Set<String> = []
    ) {
        self.account = account
        self.device = device
        self.recordNames = recordNames
        self.savedRecordNames = savedRecordNames
    }
}

/// A fault to inject.
public struct Fault: Sendable, Hashable {
    /// The kind.
    public let kind: FaultKind
    /// Seconds to wait, for kinds that carry a retry-after.
    public let retryAfter: Double?
    /// The record it is aimed at: the item a per-item fault fails, the change a delayed delivery withholds.
    public let record: String?

    /// Creates a fault.
    ///
    /// - Parameters:
    ///   - kind: The kind.
    ///   - retryAfter: Seconds to wait; kinds that carry one get 30 seconds when `nil`.
    ///   - record: The record it is aimed at, if any.
    public init(_ kind: FaultKind, retryAfter: Double? = nil, record: String? = nil) {
        self.kind = kind
        self.retryAfter = kind.hasRetryAfter ? (retryAfter ?? 30) : nil
        self.record = record
    }
}

/// Decides which fault, if any, strikes each call.
public protocol FaultSource: Sendable {
    /// The fault for `call`, consuming it; `nil` lets the call through.
    ///
    /// - Parameters:
    ///   - call: The call about to be made.
    ///   - account: The account it is made for, when one is signed in.
    func nextFault(for call: ContainerCall, account: AccountID?) -> Fault?

    /// The fault for `call` made by `target`, consuming it; `nil` lets the call through. Sources that aim faults
    /// at devices or records implement it; the default asks ``nextFault(for:account:)``.
    ///
    /// - Parameters:
    ///   - call: The call about to be made (or the page about to be delivered).
    ///   - target: Who makes it and which records it names.
    /// - Returns: The fault, or `nil`.
    func nextFault(for call: ContainerCall, target: CallTarget) -> Fault?
}

extension FaultSource {
    public func nextFault(for call: ContainerCall, target: CallTarget) -> Fault? {
        nextFault(for: call, account: target.account)
    }
}
