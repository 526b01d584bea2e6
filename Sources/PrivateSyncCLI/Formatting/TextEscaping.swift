/// The one escaping of the CLI's text output: a value shown in text can neither start a fake row nor reach the
/// terminal raw.
///
/// Escaped: backslash and double quote (so a quoted value cannot end early), newline, carriage return, tab, ESC,
/// every other C0 control, DEL, every C1 control, the Unicode line and paragraph separators (which some terminals
/// and editors break lines at) and the bidirectional overrides and isolates (which reorder what is shown). JSON
/// output is escaped by its encoder instead.
enum TextEscaping {
    /// Escapes a value for a line of text output.
    ///
    /// - Parameters:
    ///   - text: The value.
    ///   - quotes: Whether to escape `\` and `"` too: yes for a value shown on its own or in quotes; no for the last
    ///     pass over a whole line (``Terminal``), whose backslashes and quotes are the message's own.
    /// - Returns: `text`, with each character above written as `\\`, `\"`, `\n`, `\r`, `\t`, `\e` or `\u{XX}`.
    static func escape(_ text: some StringProtocol, quotes: Bool = true) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, quotes: quotes) }) else { return String(text) }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar, quotes: quotes) else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\u{1B}": escaped += "\\e"
            default: escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return escaped
    }

    /// The most characters of a name (a file name, a path) that a message shows.
    static let nameLimit = 200

    /// Escapes a name given on the command line for a message, cut to its first ``nameLimit`` characters: a path
    /// may be as long as the system allows, and an argument far longer, and a message that repeats it whole buries
    /// what it says.
    ///
    /// - Parameter name: The name.
    /// - Returns: `name` escaped as ``escape(_:quotes:)`` does, its first ``nameLimit`` characters then `...` when it
    ///   is longer.
    static func name(_ name: String) -> String {
        name.count > nameLimit ? escape(name.prefix(nameLimit)) + "..." : escape(name)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, quotes: Bool) -> Bool {
        switch scalar.value {
        case 0x5C, 0x22: quotes
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
