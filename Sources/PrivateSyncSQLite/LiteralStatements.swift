/// The statements of a connection that were prepared from SQL literals, found by the literal's address.
///
/// An open-addressing table with a multiplicative hash of the address: a look-up costs a multiplication and a
/// comparison or two, where a `Dictionary` keyed by the pointer runs SipHash (every statement a sync or a status
/// runs is looked up here: `make bench`).
struct LiteralStatements {
    private var keys: [UnsafeRawPointer?] = Array(repeating: nil, count: 64)
    private var statements: [Statement?] = Array(repeating: nil, count: 64)
    private var count = 0

    /// The statement prepared from the literal at `key`, if any.
    func statement(for key: UnsafeRawPointer) -> Statement? {
        var slot = Self.slot(key, mask: keys.count - 1)
        while let candidate = keys[slot] {
            if candidate == key { return statements[slot] }
            slot = (slot + 1) & (keys.count - 1)
        }
        return nil
    }

    /// Remembers `statement` as the one prepared from the literal at `key` (not remembered yet).
    mutating func insert(_ statement: Statement, for key: UnsafeRawPointer) {
        if (count + 1) * 2 > keys.count { grow() }
        var slot = Self.slot(key, mask: keys.count - 1)
        while keys[slot] != nil { slot = (slot + 1) & (keys.count - 1) }
        keys[slot] = key
        statements[slot] = statement
        count += 1
    }

    /// Forgets every statement.
    mutating func removeAll() {
        keys = Array(repeating: nil, count: 64)
        statements = Array(repeating: nil, count: 64)
        count = 0
    }

    private mutating func grow() {
        let old = zip(keys, statements)
        keys = Array(repeating: nil, count: keys.count * 2)
        statements = Array(repeating: nil, count: statements.count * 2)
        count = 0
        for case (let key?, let statement?) in old { insert(statement, for: key) }
    }

    private static func slot(_ key: UnsafeRawPointer, mask: Int) -> Int {
        let bits = UInt64(UInt(bitPattern: key)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: bits >> 32) & mask
    }
}
