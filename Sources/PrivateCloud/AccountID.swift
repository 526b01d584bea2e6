/// An iCloud account in the simulated world, such as `alice` or `alice@example.com`.
///
/// It names the folder that holds the account's private databases, so it is restricted to characters that are safe
/// in a file name: ASCII letters, digits, `.`, `_`, `-`, `@` and `+`, 1 to 64 of them, starting with a letter or digit.
public struct AccountID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The account's name.
    public let rawValue: String

    /// Creates an account identifier.
    ///
    /// - Parameter rawValue: The account's name.
    /// - Throws: ``IdentifierError`` saying what is wrong with it.
    public init(_ rawValue: String) throws(IdentifierError) {
        if let problem = Self.problem(with: rawValue) {
            throw IdentifierError(kind: "account", value: rawValue, problem: problem)
        }
        self.rawValue = rawValue
    }

    static func problem(with value: String) -> String? {
        let bytes = value.utf8
        if bytes.isEmpty { return "it is empty" }
        if bytes.count > 64 { return "it is \(bytes.count) characters long; at most 64 are allowed" }
        if let first = bytes.first, !(CloudKitNames.isLetter(first) || CloudKitNames.isDigit(first)) {
            return "it must start with an ASCII letter or digit"
        }

        let allowed = Set("._-@+".utf8)
        if let bad = value.unicodeScalars.first(where: {
            !$0.isASCII
                || !(CloudKitNames.isLetter(UInt8($0.value)) || CloudKitNames.isDigit(UInt8($0.value))
                    || allowed.contains(UInt8($0.value)))
        }) {
            return
                "it contains \(bad.isASCII ? "'\(bad)'" : "a non-ASCII character"); only ASCII letters, digits, '.', '_', '-', '@' and '+' are allowed"
        }
        return nil
    }

    /// The record name CloudKit gives this account's user record: an underscore and 32 hexadecimal digits.
    ///
    /// It is derived from the account name with a fixed hash, so every process and every run agrees on it.
    public var userRecordID: UserRecordID {
        UserRecordID(recordName: "_" + StableHash.hex128(of: rawValue))
    }

    public var description: String { rawValue }

    public static func < (lhs: AccountID, rhs: AccountID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The user record of an iCloud account, as `CKContainer.userRecordID()` returns it.
public struct UserRecordID: Hashable, Sendable, CustomStringConvertible {
    /// The user record's name.
    public let recordName: String

    /// Creates an identifier from a stored user record name.
    public init(recordName: String) {
        self.recordName = recordName
    }

    public var description: String { recordName }
}

/// An identifier that was refused: what it was for, what was given, and what is wrong with it.
public struct IdentifierError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the identifier names ("account", "container identifier", "device").
    public let kind: String
    /// What was given.
    public let value: String
    /// What is wrong, in words.
    public let problem: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: What the identifier names.
    ///   - value: What was given.
    ///   - problem: What is wrong.
    public init(kind: String, value: String, problem: String) {
        self.kind = kind
        self.value = value
        self.problem = problem
    }

    public var description: String {
        "invalid \(kind) \(CloudKitNames.quoted(value)): \(problem)"
    }
}

/// Hashes that are the same in every process and every run (unlike `Hasher`, which is seeded per process).
public enum StableHash {
    /// FNV-1a, 64 bits.
    ///
    /// - Parameters:
    ///   - text: The text to hash, as UTF-8.
    ///   - seed: The offset basis.
    /// - Returns: The hash.
    public static func fnv1a64(_ text: String, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// 32 lowercase hexadecimal digits from two FNV-1a hashes with different seeds.
    public static func hex128(of text: String) -> String {
        hex(fnv1a64(text)) + hex(fnv1a64(text, seed: 0x6c62_272e_07bb_0142))
    }

    /// 16 lowercase hexadecimal digits.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
