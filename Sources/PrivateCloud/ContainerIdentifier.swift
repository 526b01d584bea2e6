/// A CloudKit container identifier, such as `iCloud.com.example.me`.
///
/// It starts with `iCloud.` followed by a reverse-DNS name of ASCII letters, digits, `.`, `-` and `_`, and it names
/// the container's database file, so nothing else is allowed.
public struct ContainerIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The identifier.
    public let rawValue: String

    /// Creates a container identifier.
    ///
    /// - Parameter rawValue: `iCloud.` and a reverse-DNS name, at most 255 characters.
    /// - Throws: ``IdentifierError`` saying what is wrong.
    public init(_ rawValue: String) throws(IdentifierError) {
        let prefix = "iCloud."
        func fail(_ problem: String) -> IdentifierError {
            IdentifierError(kind: "container identifier", value: rawValue, problem: problem)
        }
        guard rawValue.hasPrefix(prefix), rawValue.utf8.count > prefix.utf8.count else {
            throw fail("it must start with 'iCloud.' followed by a reverse-DNS name, as in iCloud.com.example.app")
        }
        guard rawValue.utf8.count <= 255 else { throw fail("it is longer than 255 characters") }
        // Byte by byte (every command reads the world's identifier): no set of allowed bytes, no substring search.
        let rest = rawValue.utf8.dropFirst(prefix.utf8.count)
        let dot = UInt8(ascii: ".")
        guard
            rest.allSatisfy({
                CloudKitNames.isLetter($0) || CloudKitNames.isDigit($0) || $0 == dot || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: "_")
            })
        else {
            throw fail("after 'iCloud.' only ASCII letters, digits, '.', '-' and '_' are allowed")
        }
        var previous: UInt8 = 0
        for byte in rawValue.utf8 {
            if byte == dot && previous == dot { throw fail("it must not contain an empty component") }
            previous = byte
        }
        guard previous != dot else { throw fail("it must not contain an empty component") }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: ContainerIdentifier, rhs: ContainerIdentifier) -> Bool { lhs.rawValue < rhs.rawValue }
}
