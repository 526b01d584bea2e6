/// The encoded keys (`"key":`) of the last record encoded, by position: the records of one request nearly always
/// share their keys, and a key equal to the one at its position last time is copied rather than escaped again
/// (`make bench`, `container_save_ratio`).
struct EncodedKeys {
    private var keys: [String] = []
    private var encoded: [[UInt8]] = []

    /// The encoding of `key`, at position `index` of a record's sorted fields, when the last record had it there.
    func encoded(_ key: String, at index: Int) -> [UInt8]? {
        index < keys.count && keys[index] == key ? encoded[index] : nil
    }

    /// Remembers the encoding of `key` at position `index`.
    mutating func remember(_ key: String, _ bytes: [UInt8], at index: Int) {
        if index < keys.count {
            keys[index] = key
            encoded[index] = bytes
        } else if index == keys.count {
            keys.append(key)
            encoded.append(bytes)
        }
    }
}
