#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes the package's small JSON files (a world's settings, a device's profile and preferences, a launch record, a
/// schema) the one way they are written: pretty-printed, keys sorted (so equal values give equal files), ending in
/// a newline. ``JSONReader`` reads them back.
package enum JSONFileWriter {
    /// The file text of `value`.
    ///
    /// - Parameter value: What to write.
    /// - Returns: UTF-8 JSON text, ending in a newline.
    /// - Throws: What `JSONEncoder` throws (a non-finite number, say).
    package static func bytes<Value: Encodable>(of value: Value) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return Array(try encoder.encode(value)) + [UInt8(ascii: "\n")]
    }
}
