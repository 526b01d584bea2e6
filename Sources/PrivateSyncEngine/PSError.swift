/// An error of the engine or the database, shaped like CloudKit's `CKError`: CloudKit's codes, with their numbers,
/// and what CloudKit puts in an error's user info.
///
/// `serverRecord`, `clientRecord` and `ancestorRecord` are set on `serverRecordChanged`, `retryAfterSeconds` where
/// CloudKit gives a wait (`serviceUnavailable`, `requestRateLimited`, `zoneBusy`), and `partialErrorsByItemID` on
/// `partialFailure`, keyed by ``PSRecord/ID`` or ``PSRecordZone/ID``.
public struct PSError: Error, Sendable, CustomStringConvertible {
    /// CloudKit's error codes, number for number (`CKError.Code`).
    public typealias Code = CloudError.Code

    /// The error's domain, as `CKError.errorDomain`.
    public static let errorDomain = "PrivateSyncErrorDomain"

    /// The code.
    public let code: Code
    /// What CloudKit keeps in an error's user info: the records of a conflict, the wait, the per-item errors, a
    /// description (`NSLocalizedDescription`), under CloudKit's keys.
    public let errorUserInfo: [String: any Sendable]

    /// Creates an error, as `CKError(_:userInfo:)`.
    ///
    /// - Parameters:
    ///   - code: The code.
    ///   - userInfo: What the error carries, under the keys ``PSRecordChangedErrorServerRecordKey``,
    ///     ``PSRecordChangedErrorClientRecordKey``, ``PSRecordChangedErrorAncestorRecordKey``,
    ///     ``PSErrorRetryAfterKey``, ``PSPartialErrorsByItemIDKey`` and `NSLocalizedDescription`.
    public init(_ code: Code, userInfo: [String: any Sendable] = [:]) {
        self.code = code
        self.errorUserInfo = userInfo
    }

    /// The user info, as `CKError.userInfo`.
    public var userInfo: [String: any Sendable] { errorUserInfo }
    /// The code's number, as `CKError.errorCode`.
    public var errorCode: Int { code.rawValue }

    /// For `serverRecordChanged`: the record as the server has it now. Merge into this one and save it.
    public var serverRecord: PSRecord? { errorUserInfo[PSRecordChangedErrorServerRecordKey] as? PSRecord }
    /// For `serverRecordChanged`: the record the client tried to save.
    public var clientRecord: PSRecord? { errorUserInfo[PSRecordChangedErrorClientRecordKey] as? PSRecord }
    /// For `serverRecordChanged`: the version the client's change was based on, when the client knew one.
    public var ancestorRecord: PSRecord? { errorUserInfo[PSRecordChangedErrorAncestorRecordKey] as? PSRecord }
    /// Seconds to wait before trying again, where CloudKit gives one.
    public var retryAfterSeconds: Double? { errorUserInfo[PSErrorRetryAfterKey] as? Double }
    /// For `partialFailure`: the error of each item that failed, keyed by ``PSRecord/ID`` or ``PSRecordZone/ID``.
    public var partialErrorsByItemID: [AnyHashable: any Error]? {
        guard let items = errorUserInfo[PSPartialErrorsByItemIDKey] as? ItemErrors else { return nil }
        var errors: [AnyHashable: any Error] = [:]
        for (id, error) in items.records { errors[AnyHashable(id)] = error }
        for (id, error) in items.zones { errors[AnyHashable(id)] = error }
        return errors
    }

    /// The per-item errors of a `partialFailure`, as the engine and the database keep them (`Sendable`, where
    /// `AnyHashable` keys are not).
    struct ItemErrors: Sendable {
        var records: [PSRecord.ID: PSError] = [:]
        var zones: [PSRecordZone.ID: PSError] = [:]

        var isEmpty: Bool { records.isEmpty && zones.isEmpty }
        var count: Int { records.count + zones.count }
    }

    /// The words describing what went wrong, and where.
    public var localizedDescription: String {
        (errorUserInfo[localizedDescriptionKey] as? String) ?? "PSError \(code.name) (\(code.rawValue))"
    }

    /// The code and the words, as CloudKit's errors describe themselves.
    public var description: String { "<PSError \(code.name) (\(code.rawValue)): \(localizedDescription)>" }
}

/// `NSLocalizedDescriptionKey`, spelled out so that this file needs no Foundation.
let localizedDescriptionKey = "NSLocalizedDescription"

// The user-info keys keep CloudKit's names with the prefix changed (CKErrorRetryAfterKey), so that code moving over
// changes one prefix.
// swift-format-ignore: AlwaysUseLowerCamelCase
/// The user-info key of ``PSError/retryAfterSeconds``, as `CKErrorRetryAfterKey`.
public let PSErrorRetryAfterKey = "CKRetryAfter"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// The user-info key of ``PSError/serverRecord``, as `CKRecordChangedErrorServerRecordKey`.
public let PSRecordChangedErrorServerRecordKey = "ServerRecord"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// The user-info key of ``PSError/clientRecord``, as `CKRecordChangedErrorClientRecordKey`.
public let PSRecordChangedErrorClientRecordKey = "ClientRecord"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// The user-info key of ``PSError/ancestorRecord``, as `CKRecordChangedErrorAncestorRecordKey`.
public let PSRecordChangedErrorAncestorRecordKey = "AncestorRecord"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// The user-info key of ``PSError/partialErrorsByItemID``, as `CKPartialErrorsByItemIDKey` (its value is the
/// package's own `Sendable` record of the items' errors).
public let PSPartialErrorsByItemIDKey = "CKPartialErrors"
