import PrivateSyncSQLite

/// One value of the sync engine's state as the user-created store keeps it, in a row of its `sync_state` table.
///
/// The store knows the values only by key and shape (for its range check); what they mean is the engine's (in
/// PrivateSync), which reads them all with `SyncTransaction.syncStateValues()` and writes the ones it changed with
/// `SyncTransaction.writeSyncState(_:)`.
package enum SyncStateValue: Sendable, Hashable {
    /// An integer: a flag (0 or 1), a counter, a batch size.
    case integer(Int64)
    /// A real number: a date, in seconds since 2001.
    case real(Double)
    /// Text: a user record name, a pause reason, an outcome, a message.
    case text(String)
    /// Bytes: a change token.
    case bytes([UInt8])

    /// The value as its row holds it, or `nil` for a null.
    ///
    /// - Parameter value: The column's value.
    init?(_ value: SQLiteValue) {
        switch value {
        case .null: return nil
        case .integer(let integer): self = .integer(integer)
        case .real(let real): self = .real(real)
        case .text(let text): self = .text(text)
        case .blob(let bytes): self = .bytes(bytes)
        }
    }

    /// The value to bind into its row.
    var sqliteValue: SQLiteValue {
        switch self {
        case .integer(let integer): .integer(integer)
        case .real(let real): .real(real)
        case .text(let text): .text(text)
        case .bytes(let bytes): .blob(bytes)
        }
    }
}
