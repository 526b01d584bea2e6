import PrivateSyncFileSystem

/// The process's exit status, sysexits-style.
enum ExitCode: Int32, Sendable {
    /// Success.
    case success = 0
    /// A check found a problem (audit, simulate).
    case checkFailed = 1
    /// The command line does not fit the command (EX_USAGE).
    case usage = 64
    /// Bad input data: a bad field value, a record too large, an invalid name, a type where it cannot go (EX_DATAERR).
    case dataError = 65
    /// Something named does not exist: the world, a device, a record, a file (EX_NOINPUT).
    case noInput = 66
    /// `sync now`: sync is paused (an account, a deleted zone, a full iCloud, a fallback at launch), so the cycle
    /// could not run or stopped; the status says why (EX_UNAVAILABLE).
    case unavailable = 69
    /// A bug, or a state that should not happen (EX_SOFTWARE).
    case internalError = 70
    /// A file of the world is damaged or of another kind, or could not be read or written; it was left unchanged
    /// (EX_IOERR).
    case ioError = 74
    /// `sync now`: the cycle failed transiently and will be retried, or another sync was running (EX_TEMPFAIL).
    case temporaryFailure = 75
    /// `sync now`: sync is off on this device (the user's setting), so nothing was sent (EX_CONFIG).
    case syncOff = 78
}

/// A failure the CLI reports: one sentence on standard error, and an exit code.
typealias CLIError = CodedError<ExitCode>
