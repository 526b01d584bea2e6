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
        let rest = rawValue.utf8.dropFirst(prefix.utf8.count)
        let allowed = Set(".-_".utf8)
        guard rest.allSatisfy({ CloudKitNames.isLetter($0) || CloudKitNames.isDigit($0) || allowed.contains($0) })
        else {
            throw fail("after 'iCloud.' only ASCII letters, digits, '.', '-' and '_' are allowed")
        }
        guard !rawValue.contains(".."), !rawValue.hasSuffix(".") else {
            throw fail("it must not contain an empty component")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func < (lhs: ContainerIdentifier, rhs: ContainerIdentifier) -> Bool { lhs.rawValue < rhs.rawValue }
}
