import PrivateSyncSQLite

/// A store operation that failed: what was wrong, naming the record, type, field or file.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Code: Int, Sendable, Hashable {
        /// The record type is not declared by the schema.
        case unknownType = 1
        /// The record type belongs to the other partition's store.
        case wrongPartition = 2
        /// The field is not declared for the record type.
        case unknownField = 3
        /// The value is not of the field's declared type.
        case wrongFieldType = 4
        /// A field the type requires is missing.
        case missingField = 5
        /// The value cannot be stored (a NaN, a mixed list, a location off Earth).
        case invalidValue = 6
        /// The record would exceed CloudKit's 1 MB, so it could never sync.
        case recordTooLarge = 7
        /// No record of that name in this store.
        case recordNotFound = 8
        /// The store file is damaged, foreign, or from a newer build; it was left unchanged.
        case damagedFile = 9
        /// SQLite failed (a full disk, a lock held too long, an I/O error); nothing was changed.
        case storage = 10
        /// The store's folder is missing and the configuration cannot recover (see ``CocoaStyleError``).
        case cannotCreateStore = 11
        /// A simulated crash happened: the process is considered dead and nothing more is written.
        case processCrashed = 12
        /// The record name is not a valid CloudKit record name.
        case invalidName = 13
        /// A record of the chosen name already exists on the device.
        case nameInUse = 14
        /// A store configuration given where it cannot serve (a cloud configuration for the local-only store).
        case invalidConfiguration = 15
    }

    /// The kind of failure.
    public let code: Code
    /// What was wrong, and where.
    public let message: String
    /// The underlying error, when there is one (a `DatabaseFileError`, `SQLiteError` or ``CocoaStyleError``).
    public let underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// Whether the caller gave bad input (as opposed to the store failing).
    public var isBadInput: Bool {
        switch code {
        case .unknownType, .wrongPartition, .unknownField, .wrongFieldType, .missingField, .invalidValue,
            .recordTooLarge, .invalidName, .nameInUse:
            true
        default:
            false
        }
    }

    public var description: String { message }

    /// Wraps an error from the SQLite layer.
    static func from(_ error: any Error, store path: String) -> StoreError {
        switch error {
        case let error as StoreError: return error
        case let error as DatabaseFileError:
            return StoreError(.damagedFile, error.description, underlying: error)
        case let error as SQLiteError where error.isDamagedFile:
            return StoreError(
                .damagedFile, "\(path) is damaged (\(error.message)); it was left unchanged", underlying: error)
        case let error as SQLiteError:
            return StoreError(.storage, "the store \(path) failed: \(error)", underlying: error)
        default:
            return StoreError(.storage, "the store \(path) failed: \(error)", underlying: error)
        }
    }
}

/// An error shaped like Cocoa's `NSError`: a domain, a code, a description and a failure reason.
///
/// It reproduces the error Core Data raised on Apple's stack when a CloudKit-mirrored store's folder did not exist:
/// domain `NSCocoaErrorDomain`, code 512 (`NSFileWriteUnknownError`), "The file couldn't be saved.", reason
/// "Failed to create file".
public struct CocoaStyleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error domain.
    public let domain: String
    /// The code within the domain.
    public let code: Int
    /// `NSLocalizedDescriptionKey`.
    public let localizedDescription: String
    /// `NSLocalizedFailureReasonErrorKey`.
    public let failureReason: String
    /// `NSFilePathErrorKey`.
    public let filePath: String

    /// The error a CloudKit-mirrored store raises when its folder is missing.
    ///
    /// - Parameter path: The store file that could not be created.
    public static func failedToCreateFile(_ path: String) -> CocoaStyleError {
        CocoaStyleError(
            domain: "NSCocoaErrorDomain", code: 512, localizedDescription: "The file couldn't be saved.",
            failureReason: "Failed to create file", filePath: path)
    }

    public var description: String {
        "Error Domain=\(domain) Code=\(code) \"\(localizedDescription)\" UserInfo={NSFilePath=\(filePath), "
            + "reason=\(failureReason)}"
    }
}
