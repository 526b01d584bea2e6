import ArgumentParsing
import DeviceStore
import PartitionMirror
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import PrivateSyncSQLite
import SimulatedWorld
import Simulator

extension CLIError {
    /// The CLI's report of any error the libraries throw: the error itself as the cause, its exit code, and the
    /// command to run next where the CLI has one (the libraries never name a command).
    static func from(_ error: any Error) -> CLIError {
        // A full disk, whichever layer met it: transient (75), said in so many words, never a damaged file (74).
        if !(error is CLIError), PrivateSyncFileSystem.isDiskFull(error) {
            return CLIError(.temporaryFailure, "the disk is full; free some space and try again", underlying: error)
        }
        // Another command held a lock for longer than the wait: transient (75), never a damaged file (74). The
        // mirror's folder lock says whose lock it was itself.
        if let error = error as? MirrorError, error.code == .folderBusy {
            return CLIError(.temporaryFailure, "busy, try again", underlying: error)
        }
        if !(error is CLIError), PrivateSyncFileSystem.isBusy(error) {
            return CLIError(
                .temporaryFailure, "busy, try again: another command held a lock on this file for longer than the wait",
                underlying: error)
        }
        switch error {
        case let error as CLIError:
            return error
        case let error as ValueError:
            // The line fits the command, but a value is not one it can take: bad input data, not usage.
            return CLIError(.dataError, underlying: error)
        case let error as WorldError:
            switch error.code {
            case .alreadyExists, .deviceExists, .invalidName, .invalidSchema:
                return CLIError(.dataError, underlying: error)
            case .notFound: return CLIError(.noInput, "\(error) (create one with: privatesync init)")
            case .deviceNotFound: return CLIError(.noInput, underlying: error)
            case .damaged, .fileSystem: return CLIError(.ioError, underlying: error)
            }
        case let error as DeviceError:
            switch error.code {
            case .invalidName, .alreadyExists, .noAccount: return CLIError(.dataError, underlying: error)
            case .notFound: return CLIError(.noInput, underlying: error)
            case .damaged, .fileSystem: return CLIError(.ioError, underlying: error)
            case .appRunning: return CLIError(.temporaryFailure, underlying: error)
            }
        case let error as StoreError:
            if error.isBadInput { return CLIError(.dataError, underlying: error) }
            switch error.code {
            case .recordNotFound: return CLIError(.noInput, underlying: error)
            case .processCrashed: return CLIError(.internalError, underlying: error)
            default: return CLIError(.ioError, underlying: error)
            }
        case let error as LaunchError:
            switch error.code {
            case .neverLaunched: return CLIError(.noInput, underlying: error)
            case .damagedFile, .fileSystem, .storage: return CLIError(.ioError, underlying: error)
            }
        case let error as MirrorError:
            // The mirror's own files (its bookkeeping, its folder) or the store under it: the device's files failed.
            return CLIError(error.code == .fetchedRecordRefused ? .dataError : .ioError, underlying: error)
        case let error as SchemaError:
            return CLIError(.dataError, underlying: error)
        case let error as SweepMergeError:
            if error.code == .notAShardReport {
                return CLIError(
                    .dataError,
                    "cannot merge: \(error): write shard reports with 'privatesync simulate --shard I/N --json'")
            }
            return CLIError(.dataError, "cannot merge", underlying: error)
        case let error as IdentifierError:
            return CLIError(.dataError, underlying: error)
        case let error as CloudError:
            if let storage = error.storageError { return from(storage) }
            return CLIError(.internalError, underlying: error)
        case let error as DatabaseFileError:
            return CLIError(error.code == .missing ? .noInput : .ioError, underlying: error)
        case let error as SQLiteError:
            return CLIError(.ioError, underlying: error)
        case let error as FileSystemError:
            return CLIError(error.isNotFound ? .noInput : .ioError, underlying: error)
        default:
            return CLIError(.internalError, "internal error", underlying: error)
        }
    }
}
