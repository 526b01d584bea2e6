/// Reads base64 typed on the command line: canonical base64 (RFC 4648, section 4) only.
///
/// A lenient decoder turns `====` into a zero byte and ignores stray bits, so a typo stores bytes nobody typed.
/// Here the length must be a multiple of 4, padding may only end the text (at most two `=`), every other character
/// must be in the alphabet, and the bits the padding leaves over must be zero, so each byte string has exactly one
/// accepted spelling.
enum Base64Argument {
    /// Decodes canonical base64.
    ///
    /// - Parameter text: The text as typed; the empty text is the empty byte string.
    /// - Returns: The bytes, or `nil` when `text` is not canonical base64.
    static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            let isLastGroup = index + 4 == characters.count
            var group: UInt32 = 0
            var digits = 0
            for offset in 0..<4 {
                let character = characters[index + offset]
                if character == UInt8(ascii: "=") {
                    // Padding: only in the last group, only after at least two digits.
                    guard isLastGroup, offset >= 2 else { return nil }
                } else {
                    guard digits == offset, let value = sextet(character) else { return nil }
                    group = group << 6 | UInt32(value)
                    digits += 1
                }
            }
            switch digits {
            case 4:
                bytes += [
                    UInt8(truncatingIfNeeded: group >> 16), UInt8(truncatingIfNeeded: group >> 8),
                    UInt8(truncatingIfNeeded: group),
                ]
            case 3:
                guard group & 0x3 == 0 else { return nil }
                bytes += [UInt8(truncatingIfNeeded: group >> 10), UInt8(truncatingIfNeeded: group >> 2)]
            default:
                guard group & 0xF == 0 else { return nil }
                bytes.append(UInt8(truncatingIfNeeded: group >> 4))
            }
            index += 4
        }
        return bytes
    }

    private static func sextet(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
