/// CloudKit's rules for names, applied exactly: record and zone names, record types and field keys.
public enum CloudKitNames {
    /// The longest name CloudKit accepts, in bytes.
    public static let maximumLength = 255

    /// Why a name is refused, or `nil` when it is a valid record name.
    ///
    /// A record name (and a zone name) is 1 to 255 ASCII characters and does not start with an underscore, which
    /// CloudKit reserves for its own names. Control characters are refused too: CloudKit does not document them
    /// and they cannot be shown or typed.
    ///
    /// - Parameters:
    ///   - name: The candidate.
    ///   - kind: What it names, for the message ("record name", "zone name").
    /// - Returns: A sentence saying what is wrong, or `nil`.
    public static func problem(withRecordName name: String, kind: String = "record name") -> String? {
        let bytes = name.utf8
        if bytes.isEmpty { return "a \(kind) must not be empty" }
        if bytes.count > maximumLength {
            return "the \(kind) is \(bytes.count) bytes long; CloudKit allows at most \(maximumLength)"
        }
        if bytes.first == UInt8(ascii: "_") {
            return "the \(kind) \(quoted(name)) starts with an underscore, which CloudKit reserves"
        }
        // One pass over the bytes: every record of every save is checked (`make bench`, `container_save_ratio`).
        let (nonASCII, control) = scan(name)
        if nonASCII {
            return "the \(kind) \(quoted(name)) contains a non-ASCII character; CloudKit names are ASCII"
        }
        if control {
            return "the \(kind) \(quoted(name)) contains a control character"
        }
        return nil
    }

    /// Whether `name` holds a byte that is not ASCII, and whether it holds a control character.
    private static func scan(_ name: String) -> (nonASCII: Bool, control: Bool) {
        func scan(_ bytes: some Sequence<UInt8>) -> (nonASCII: Bool, control: Bool) {
            var control = false
            for byte in bytes {
                if byte >= 0x80 { return (true, control) }
                if byte < 0x20 || byte == 0x7F { control = true }
            }
            return (false, control)
        }
        return name.utf8.withContiguousStorageIfAvailable { scan($0) } ?? scan(name.utf8)
    }

    /// Why a record type or field key is refused, or `nil` when it is valid.
    ///
    /// Record types and field keys start with an ASCII letter and hold only ASCII letters, digits and underscores,
    /// at most 255 of them.
    ///
    /// - Parameters:
    ///   - name: The candidate.
    ///   - kind: "record type" or "field key".
    /// - Returns: A sentence saying what is wrong, or `nil`.
    public static func problem(withIdentifier name: String, kind: String) -> String? {
        let bytes = name.utf8
        if bytes.isEmpty { return "a \(kind) must not be empty" }
        if bytes.count > maximumLength {
            return "the \(kind) is \(bytes.count) bytes long; CloudKit allows at most \(maximumLength)"
        }
        guard let first = bytes.first, isLetter(first) else {
            return "the \(kind) \(quoted(name)) must start with an ASCII letter"
        }
        if !bytes.allSatisfy({ isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }) {
            return "the \(kind) \(quoted(name)) may hold only ASCII letters, digits and underscores"
        }
        return nil
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// A name shown in a message: quoted, and cut short when long.
    public static func quoted(_ name: String) -> String {
        name.count > 40 ? "\"\(name.prefix(37))...\"" : "\"\(name)\""
    }
}
