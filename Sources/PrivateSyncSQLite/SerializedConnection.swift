import Synchronization

/// A ``Connection`` shared between tasks, used by one at a time.
///
/// The lock is held for the whole closure, so a closure that opens and commits a transaction sees no other
/// caller's statements in between.
package final class SerializedConnection: Sendable {
    private let connection: Mutex<Connection>
    /// The database file.
    package let path: String

    /// Takes ownership of a connection.
    ///
    /// - Parameter connection: A connection no one else holds.
    package init(_ connection: sending Connection) {
        self.path = connection.path
        self.connection = Mutex(connection)
    }

    /// Runs `body` with the connection, holding the lock.
    ///
    /// - Parameter body: The work; it must not keep the connection or its statements.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    package func withConnection<T, E: Error>(_ body: (Connection) throws(E) -> sending T) throws(E) -> sending T {
        try connection.withLock { (connection: inout Connection) throws(E) -> sending T in try body(connection) }
    }
}
