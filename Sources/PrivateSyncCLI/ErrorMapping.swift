import ArgumentParsing
import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import PrivateSyncSQLite
import SimulatedWorld

extension CLIError {
    /// The CLI's report of any error the libraries throw: its sentence and its exit code.
    static func from(_ error: any Error) -> CLIError {
        switch error {
        case let error as CLIError:
            return error
        case let error as ValueError:
            // The line fits the command, but a value is not one it can take: bad input data, not usage.
            return CLIError(.dataError, error.message)
        case let error as WorldError:
            switch error.code {
            case .alreadyExists, .deviceExists, .invalidName, .invalidSchema: return CLIError(.dataError, error.message)
            case .notFound, .deviceNotFound: return CLIError(.noInput, error.message)
            case .damaged, .fileSystem: return CLIError(.ioError, error.message)
            }
        case let error as DeviceError:
            switch error.code {
            case .invalidName, .alreadyExists, .noAccount: return CLIError(.dataError, error.message)
            case .notFound: return CLIError(.noInput, error.message)
            case .damaged, .fileSystem: return CLIError(.ioError, error.message)
            }
        case let error as StoreError:
            if error.isBadInput { return CLIError(.dataError, error.message) }
            switch error.code {
            case .recordNotFound: return CLIError(.noInput, error.message)
            case .processCrashed: return CLIError(.internalError, error.message)
            default: return CLIError(.ioError, error.message)
            }
        case let error as LaunchError:
            switch error.code {
            case .neverLaunched: return CLIError(.noInput, error.message)
            case .damagedFile, .fileSystem, .storage: return CLIError(.ioError, error.message)
            }
        case let error as SchemaError:
            return CLIError(.dataError, error.message)
        case let error as IdentifierError:
            return CLIError(.dataError, error.description)
        case let error as CloudError:
            if let storage = error.storageError { return from(storage) }
            return CLIError(.internalError, error.description)
        case let error as DatabaseFileError:
            return CLIError(error.code == .missing ? .noInput : .ioError, error.description)
        case let error as SQLiteError:
            return CLIError(.ioError, error.description)
        case let error as FileSystemError:
            return CLIError(error.isNotFound ? .noInput : .ioError, error.description)
        default:
            return CLIError(.internalError, "internal error: \(error)")
        }
    }
}
