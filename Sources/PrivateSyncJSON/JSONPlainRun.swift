/// Finds where a run of bytes that a JSON string holds as they are ends: at the first quote, backslash or control
/// character (below 0x20), which the writer escapes and the reader stops at.
///
/// Long texts are written and read whole at every save and fetch of their record (`make bench`,
/// `simulated_speedup`), so the run is scanned 32 bytes at a time with vector compares, then eight at a time.
package enum JSONPlainRun {
    /// The index of the first byte from `start` that is not plain (a quote, a backslash or below 0x20), or `end`.
    @inline(__always)
    package static func end(_ base: UnsafeRawPointer, from start: Int, to end: Int) -> Int {
        var index = start
        let quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
        let backslash = SIMD16<UInt8>(repeating: UInt8(ascii: "\\"))
        let space = SIMD16<UInt8>(repeating: 0x20)
        while index + 32 <= end {
            let low = (base + index).loadUnaligned(as: SIMD16<UInt8>.self)
            let high = (base + index + 16).loadUnaligned(as: SIMD16<UInt8>.self)
            let special =
                (low .== quote) .| (low .== backslash) .| (low .< space) .| (high .== quote) .| (high .== backslash)
                .| (high .< space)
            // Any lane set: the mask's lanes are all-ones or zero, read as two words.
            let words = unsafeBitCast(special, to: SIMD2<UInt64>.self)
            if words[0] | words[1] != 0 { break }
            index += 32
        }
        while index + 8 <= end, !mayBeSpecial((base + index).loadUnaligned(as: UInt64.self)) {
            index += 8
        }
        while index < end {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return end
    }

    /// Whether any of eight bytes may be a quote, a backslash or below 0x20 (never `false` when one is).
    @inline(__always)
    package static func mayBeSpecial(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let quotes = (quote &- ones) & ~quote & highs
        let backslashes = (backslash &- ones) & ~backslash & highs
        return control | quotes | backslashes != 0
    }
}
