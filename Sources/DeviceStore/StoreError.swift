import PrivateSyncSQLite

/// The kinds of ``StoreError``. Numbered from 1 in the order declared; a new kind is added at the end, so a
/// number never changes.
public enum StoreErrorCode: Int, Sendable, Hashable {
    /// The record type is not declared by the schema.
    case unknownType = 1
    /// The record type belongs to the other partition's store.
    case wrongPartition
    /// The field is not declared for the record type.
    case unknownField
    /// The value is not of the field's declared type.
    case wrongFieldType
    /// A field the type requires is missing.
    case missingField
    /// The value cannot be stored (a NaN, a mixed list, a location off Earth).
    case invalidValue
    /// The record would exceed CloudKit's 1 MB, so it could never sync.
    case recordTooLarge
    /// No record of that name in this store.
    case recordNotFound
    /// The store file is damaged, foreign, or from a newer build; it was left unchanged.
    case damagedFile
    /// SQLite failed (a full disk, a lock held too long, an I/O error); nothing was changed.
    case storage
    /// The store's folder is missing and the configuration cannot recover (see ``CocoaStyleError``).
    case cannotCreateStore
    /// A simulated crash happened: the process is considered dead and nothing more is written.
    case processCrashed
    /// The record name is not a valid CloudKit record name.
    case invalidName
    /// A record of the chosen name already exists on the device.
    case nameInUse
    /// A store configuration given where it cannot serve (a cloud configuration for the local-only store).
    case invalidConfiguration

    /// Whether the caller gave bad input (as opposed to the store failing).
    public var isBadInput: Bool {
        switch self {
        case .unknownType, .wrongPartition, .unknownField, .wrongFieldType, .missingField, .invalidValue,
            .recordTooLarge, .invalidName, .nameInUse:
            true
        default:
            false
        }
    }
}

/// A store operation that failed: what was wrong, naming the record, type, field or file; its `underlying` error,
/// when there is one, is a `DatabaseFileError`, a `SQLiteError`, a ``CocoaStyleError`` or the
/// `FieldsDecodingError` of a record whose stored fields do not decode.
public typealias StoreError = CodedError<StoreErrorCode>

extension CodedError where Domain == StoreErrorCode {
    /// Whether the caller gave bad input (as opposed to the store failing).
    public var isBadInput: Bool { code.isBadInput }

    /// Wraps an error from the SQLite layer, naming the store.
    static func from(_ error: any Error, store path: String) -> StoreError {
        switch error {
        case let error as StoreError: return error
        case let error as DatabaseFileError:
            return StoreError(.damagedFile, "the store cannot be used", underlying: error)
        case let error as SQLiteError where error.isDamagedFile:
            return StoreError(.damagedFile, "\(path) is damaged (it was left unchanged)", underlying: error)
        default:
            return StoreError(.storage, "the store \(path) failed", underlying: error)
        }
    }
}
