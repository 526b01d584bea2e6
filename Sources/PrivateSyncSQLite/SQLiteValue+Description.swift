extension SQLiteValue {
    /// The value's SQLite type, for messages.
    package var typeName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }

    /// The value, briefly, for messages naming a bad value: a number as it is, text quoted and cut at 40
    /// characters, a blob by its size.
    package var debugText: String {
        switch self {
        case .null: "null"
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .text(let value): "\"\(value.prefix(40))\""
        case .blob(let value): "a blob of \(value.count) bytes"
        }
    }
}
