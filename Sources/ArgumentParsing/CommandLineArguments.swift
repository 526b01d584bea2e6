/// The process's arguments, decoded strictly.
///
/// On Linux `CommandLine.arguments` decodes each argument leniently: a byte that is not UTF-8 silently becomes
/// U+FFFD, so a name or value typed in another encoding would be stored changed. Here the raw bytes of `argv` are
/// validated, and an argument that is not valid UTF-8 is refused.
package enum CommandLineArguments {
    /// Decodes arguments from their bytes.
    ///
    /// - Parameter arguments: Each argument's bytes, without its terminating NUL, after the tool's name.
    /// - Returns: The arguments as text.
    /// - Throws: ``UsageError`` naming the first argument that is not valid UTF-8, by its position, and the offset
    ///   of its first bad byte.
    package static func decode(_ arguments: [[UInt8]]) throws(UsageError) -> [String] {
        var decoded: [String] = []
        decoded.reserveCapacity(arguments.count)
        for (position, bytes) in arguments.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                let offset = firstInvalidOffset(bytes)
                throw UsageError(
                    "argument \(position + 1) is not valid UTF-8 (byte \(offset)); give every name and value in UTF-8",
                    path: [])
            }
            decoded.append(text)
        }
        return decoded
    }

    /// The raw bytes of this process's arguments after the tool's name, from `argv`.
    package static func processArgumentBytes() -> [[UInt8]] {
        let count = Int(CommandLine.argc)
        guard count > 1 else { return [] }
        return (1..<count).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            let length = strlen(argument)
            return argument.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
        }
    }

    /// The offset of the first byte at which `bytes` stops being valid UTF-8.
    private static func firstInvalidOffset(_ bytes: [UInt8]) -> Int {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput, .error: return offset
            }
        }
    }
}

/// `strlen(3)`, without importing the C library into the parsing module.
private func strlen(_ string: UnsafePointer<CChar>) -> Int {
    var length = 0
    while string[length] != 0 { length += 1 }
    return length
}
