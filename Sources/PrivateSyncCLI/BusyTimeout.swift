import PrivateSyncFileSystem
import PrivateSyncSQLite

/// How long every file the CLI opens waits for another command's lock: `PRIVATESYNC_BUSY_TIMEOUT_MS`, or 10 seconds.
///
/// Set once, before anything opens a file. A team's test runner shortens it to see contention fail fast; a slow
/// shared disk may lengthen it. A command still locked out after the wait exits 75, "busy, try again".
enum BusyTimeout {
    /// The longest wait the variable may ask for: an hour (a longer one reads as a hang, not a wait).
    static let maximumMilliseconds = 3_600_000

    /// Sets the process's wait from the variable's value.
    ///
    /// - Parameter value: The variable's value, or `nil` when it is not set (the default, 10 seconds, stays).
    /// - Throws: ``CLIError`` (64) when the value is not a whole number of milliseconds from 0 to an hour.
    static func apply(_ value: String?) throws(CLIError) {
        guard let value else { return }
        guard value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), value.utf8.count <= 7,
            let milliseconds = Int(value), milliseconds <= maximumMilliseconds
        else {
            throw CLIError(
                .usage,
                "PRIVATESYNC_BUSY_TIMEOUT_MS is \"\(TextEscaping.escape(value))\"; give a whole number of milliseconds "
                    + "from 0 to \(maximumMilliseconds)")
        }
        Connection.defaultBusyTimeoutMilliseconds = Int32(milliseconds)
    }
}
