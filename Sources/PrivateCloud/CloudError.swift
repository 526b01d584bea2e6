import PrivateSyncFileSystem
import PrivateSyncSQLite

/// An error from a private container, shaped like CloudKit's `CKError`: the same codes, with the same numbers.
///
/// Besides the code it carries what CloudKit puts in an error's user info: `retryAfter` for the errors CloudKit
/// gives one, the per-item errors of a `partialFailure`, and the server, client and ancestor records of a
/// `serverRecordChanged`.
public struct CloudError: Error, Sendable, CustomStringConvertible {
    /// `CKError.Code`, number for number.
    public enum Code: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A nonrecoverable error inside CloudKit.
        case internalError = 1
        /// Some items of a batch failed: the per-item errors say which, and why.
        case partialFailure = 2
        /// The network is not available.
        case networkUnavailable = 3
        /// The network was available, but the request failed.
        case networkFailure = 4
        /// The container is unknown or not configured.
        case badContainer = 5
        /// CloudKit is unavailable for now; retry after `retryAfter`.
        case serviceUnavailable = 6
        /// The device made too many requests; retry after `retryAfter`.
        case requestRateLimited = 7
        /// The app lacks the entitlement the request needs.
        case missingEntitlement = 8
        /// No iCloud account is signed in, or its credentials are missing.
        case notAuthenticated = 9
        /// The user may not access this item.
        case permissionFailure = 10
        /// The record, or the zone, does not exist.
        case unknownItem = 11
        /// The request was malformed.
        case invalidArguments = 12
        /// The results were truncated (no longer returned by CloudKit).
        case resultsTruncated = 13
        /// The record changed on the server since the client fetched it: the error carries the server, client and
        /// ancestor records.
        case serverRecordChanged = 14
        /// The server rejected the request.
        case serverRejectedRequest = 15
        /// An asset's file could not be found.
        case assetFileNotFound = 16
        /// An asset's file changed while it was being saved.
        case assetFileModified = 17
        /// The app version is too old for the container.
        case incompatibleVersion = 18
        /// A unique-field constraint failed on the server.
        case constraintViolation = 19
        /// The operation was cancelled.
        case operationCancelled = 20
        /// The change token is too old: fetch again from the start.
        case changeTokenExpired = 21
        /// The batch failed as a whole because one of its items failed: nothing in it was saved.
        case batchRequestFailed = 22
        /// The zone is busy with other requests; retry after `retryAfter`.
        case zoneBusy = 23
        /// The request does not apply to this database.
        case badDatabase = 24
        /// Saving would exceed the user's iCloud storage.
        case quotaExceeded = 25
        /// The zone does not exist.
        case zoneNotFound = 26
        /// The request was too large: split it into smaller batches.
        case limitExceeded = 27
        /// The user deleted the zone, from iCloud settings: the app's data is gone from iCloud.
        case userDeletedZone = 28
        /// A share has too many participants.
        case tooManyParticipants = 29
        /// The record is already shared.
        case alreadyShared = 30
        /// A record's parent or share reference could not be resolved.
        case referenceViolation = 31
        /// The managed account may not perform the request.
        case managedAccountRestricted = 32
        /// A share participant may need to verify their account.
        case participantMayNeedVerification = 33
        /// The server's response was lost: the request may have succeeded, so retry it.
        case serverResponseLost = 34
        /// An asset is not available.
        case assetNotAvailable = 35
        /// The account is temporarily unavailable (being set up or recovered); retry later.
        case accountTemporarilyUnavailable = 36

        /// CloudKit's name for the code, as in `CKError.Code.zoneBusy`.
        public var name: String {
            switch self {
            case .internalError: "internalError"
            case .partialFailure: "partialFailure"
            case .networkUnavailable: "networkUnavailable"
            case .networkFailure: "networkFailure"
            case .badContainer: "badContainer"
            case .serviceUnavailable: "serviceUnavailable"
            case .requestRateLimited: "requestRateLimited"
            case .missingEntitlement: "missingEntitlement"
            case .notAuthenticated: "notAuthenticated"
            case .permissionFailure: "permissionFailure"
            case .unknownItem: "unknownItem"
            case .invalidArguments: "invalidArguments"
            case .resultsTruncated: "resultsTruncated"
            case .serverRecordChanged: "serverRecordChanged"
            case .serverRejectedRequest: "serverRejectedRequest"
            case .assetFileNotFound: "assetFileNotFound"
            case .assetFileModified: "assetFileModified"
            case .incompatibleVersion: "incompatibleVersion"
            case .constraintViolation: "constraintViolation"
            case .operationCancelled: "operationCancelled"
            case .changeTokenExpired: "changeTokenExpired"
            case .batchRequestFailed: "batchRequestFailed"
            case .zoneBusy: "zoneBusy"
            case .badDatabase: "badDatabase"
            case .quotaExceeded: "quotaExceeded"
            case .zoneNotFound: "zoneNotFound"
            case .limitExceeded: "limitExceeded"
            case .userDeletedZone: "userDeletedZone"
            case .tooManyParticipants: "tooManyParticipants"
            case .alreadyShared: "alreadyShared"
            case .referenceViolation: "referenceViolation"
            case .managedAccountRestricted: "managedAccountRestricted"
            case .participantMayNeedVerification: "participantMayNeedVerification"
            case .serverResponseLost: "serverResponseLost"
            case .assetNotAvailable: "assetNotAvailable"
            case .accountTemporarilyUnavailable: "accountTemporarilyUnavailable"
            }
        }

        public var description: String { "\(name) (\(rawValue))" }

        /// Whether CloudKit's guidance is to try the same request again later, unchanged.
        ///
        /// These are the codes CKSyncEngine retries by itself. `serverResponseLost` is included because every
        /// request this package makes is idempotent: a save carries the change tag it was based on, so a replay of
        /// an applied save fails with `serverRecordChanged` rather than applying twice.
        public var isTransient: Bool {
            switch self {
            case .networkUnavailable, .networkFailure, .serviceUnavailable, .requestRateLimited, .zoneBusy,
                .accountTemporarilyUnavailable, .serverResponseLost:
                true
            default:
                false
            }
        }
    }

    /// The item a per-item error of a `partialFailure` belongs to.
    public enum ItemID: Hashable, Sendable, CustomStringConvertible {
        /// A record of the batch.
        case record(RecordID)
        /// A zone of the batch.
        case zone(ZoneID)

        public var description: String {
            switch self {
            case .record(let id): "record \(id)"
            case .zone(let id): "zone \(id.zoneName)"
            }
        }
    }

    /// The code.
    public let code: Code
    /// What was wrong, and where, in a sentence.
    public let message: String
    /// Seconds to wait before trying again, for `serviceUnavailable`, `requestRateLimited` and `zoneBusy`.
    public var retryAfter: Double?
    /// For `partialFailure`: the error of each item that failed.
    public var partialErrors: [ItemID: CloudError] {
        get { payload?.partialErrors ?? [:] }
        set { update { $0.partialErrors = newValue } }
    }
    /// For `serverRecordChanged`: the record as the server has it now. Merge into this one.
    public var serverRecord: Record? {
        get { payload?.serverRecord }
        set { update { $0.serverRecord = newValue } }
    }
    /// For `serverRecordChanged`: the record the client tried to save.
    public var clientRecord: Record? {
        get { payload?.clientRecord }
        set { update { $0.clientRecord = newValue } }
    }
    /// For `serverRecordChanged`: the record the client's change was based on, when the client knew one.
    public var ancestorRecord: Record? {
        get { payload?.ancestorRecord }
        set { update { $0.ancestorRecord = newValue } }
    }
    /// For `internalError` raised by a container's own storage: the underlying error (for example a
    /// `DatabaseFileError` naming a damaged file). A real CloudKit server never reports such a thing; this fake can.
    public var storageError: (any Error)? {
        get { payload?.storageError }
        set { update { $0.storageError = newValue } }
    }
    /// The fault that produced this error, when a fault-injecting container made it up (its CLI name, such as
    /// `network-unavailable`); `nil` for an error the container itself reported.
    public var injectedFault: String? {
        get { payload?.injectedFault }
        set { update { $0.injectedFault = newValue } }
    }

    /// What only some errors carry (CloudKit's user info), behind one reference: the error itself stays a few words
    /// long, so throwing it is cheap and its layout is the one the Swift 6.3 compiler handles in async witnesses of
    /// typed throws (a larger one crashed a `ForwardingContainer` default implementation on a null error slot).
    private var payload: Payload?

    /// Changes the payload without touching a copy another error shares (the box is immutable; a change makes a
    /// new one).
    private mutating func update(_ change: (inout Payload.Fields) -> Void) {
        var fields = payload?.fields ?? Payload.Fields()
        change(&fields)
        payload = Payload(fields)
    }

    /// Whether this is a failure of the container's own storage that no retry can cure: a damaged file, a file that
    /// is not this container's database, or one whose tables are missing. A busy lock or a full disk is not one.
    public var isDamagedStorage: Bool {
        guard code == .internalError, let storageError, !PrivateSyncFileSystem.isDiskFull(storageError),
            !PrivateSyncFileSystem.isBusy(storageError)
        else {
            return false
        }
        if storageError is DatabaseFileError { return true }
        if let error = storageError as? SQLiteError {
            return error.isDamagedFile || error.code == .error
        }
        return false
    }

    /// Whether the container's own storage failed for want of disk space (this fake only: its file lives on the
    /// device's disk). Transient: retried once space is freed, never a damaged container.
    public var isDiskFull: Bool {
        guard code == .internalError, let storageError else { return false }
        return PrivateSyncFileSystem.isDiskFull(storageError)
    }

    /// Whether the container's own storage was locked by another process for longer than the wait (this fake only:
    /// many processes share its file). Transient: retried, never a damaged container.
    public var isBusy: Bool {
        guard code == .internalError, let storageError else { return false }
        return PrivateSyncFileSystem.isBusy(storageError)
    }

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The CloudKit code.
    ///   - message: What was wrong, and where.
    ///   - retryAfter: Seconds to wait, where CloudKit gives such a hint.
    public init(_ code: Code, _ message: String, retryAfter: Double? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    /// A `partialFailure` wrapping per-item errors, as CloudKit reports a modify request in which some items failed.
    ///
    /// - Parameter errors: The error of each item that failed (including `batchRequestFailed` ones).
    /// - Returns: The wrapping error.
    public static func partialFailure(_ errors: [ItemID: CloudError]) -> CloudError {
        let own = errors.values.filter { $0.code != .batchRequestFailed }.count
        var error = CloudError(
            .partialFailure,
            "\(errors.count) item(s) failed (\(own) on their own, \(errors.count - own) because their batch failed)")
        error.partialErrors = errors
        return error
    }

    /// Whether trying again later, unchanged, may succeed. See ``Code/isTransient``.
    public var isTransient: Bool { code.isTransient }

    public var description: String {
        var text = "CloudKit error \(code): \(message)"
        if let retryAfter { text += " (retry after \(retryAfter)s)" }
        if !partialErrors.isEmpty {
            let items = partialErrors.sorted { "\($0.key)" < "\($1.key)" }.prefix(5)
            text += "; " + items.map { "\($0.key): \($0.value.code)" }.joined(separator: ", ")
            if partialErrors.count > 5 { text += ", …" }
        }
        return text
    }
}

extension CloudError {
    /// The immutable box of an error's rarely used fields.
    fileprivate final class Payload: Sendable {
        /// The fields, as a value.
        struct Fields: Sendable {
            var partialErrors: [ItemID: CloudError] = [:]
            var serverRecord: Record?
            var clientRecord: Record?
            var ancestorRecord: Record?
            var storageError: (any Error)?
            var injectedFault: String?
        }

        let fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }

        var partialErrors: [ItemID: CloudError] { fields.partialErrors }
        var serverRecord: Record? { fields.serverRecord }
        var clientRecord: Record? { fields.clientRecord }
        var ancestorRecord: Record? { fields.ancestorRecord }
        var storageError: (any Error)? { fields.storageError }
        var injectedFault: String? { fields.injectedFault }
    }
}
