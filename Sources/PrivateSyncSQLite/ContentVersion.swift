/// The version of a database's content as one connection reads it (``Connection/contentVersion()``): equal
/// versions from the same connection mean the same content.
package struct ContentVersion: Hashable, Sendable {
    /// `PRAGMA data_version`: moves when another connection commits.
    let others: Int64
    /// `sqlite3_total_changes64`: moves when this connection changes a row.
    let own: Int64
}
