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

    public var description: String { rawValue }

    public static func < (lhs: FaultKind, rhs: FaultKind) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The CloudKit error code the fault produces.
    public var code: CloudError.Code {
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
        }
    }

    /// Whether CloudKit attaches a retry-after to this fault's error.
    public var hasRetryAfter: Bool {
        self == .serviceUnavailable || self == .rateLimited || self == .zoneBusy
    }

    /// Whether the fault can strike `call`.
    public func applies(to call: ContainerCall) -> Bool {
        switch (self, call) {
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
        default: false
        }
    }
}

/// A call to a container, as a fault source sees it.
public enum ContainerCall: Sendable, Hashable {
    case userRecordID
    case saveZones
    case deleteZones
    case allZones
    case fetchRecords
    case modifyRecords(saves: Int, deletes: Int)
    case recordZoneChanges(hasToken: Bool)
    case databaseChanges
}

/// A fault to inject.
public struct Fault: Sendable, Hashable {
    /// The kind.
    public let kind: FaultKind
    /// Seconds to wait, for kinds that carry a retry-after.
    public let retryAfter: Double?

    /// Creates a fault.
    ///
    /// - Parameters:
    ///   - kind: The kind.
    ///   - retryAfter: Seconds to wait; kinds that carry one get 30 seconds when `nil`.
    public init(_ kind: FaultKind, retryAfter: Double? = nil) {
        self.kind = kind
        self.retryAfter = kind.hasRetryAfter ? (retryAfter ?? 30) : nil
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
}
