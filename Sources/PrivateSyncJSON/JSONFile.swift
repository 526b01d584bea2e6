/// A value kept in a JSON file of its own, read with ``JSONReader`` (see there for why not `Codable`) and written
/// with ``JSONFileWriter``.
package protocol JSONFile {
    /// Reads the value the reader is at.
    ///
    /// - Parameter reader: The reader, at the value's first byte.
    /// - Returns: The value.
    /// - Throws: ``JSONReadError`` naming the place of anything wrong.
    static func read(_ reader: inout JSONReader) throws(JSONReadError) -> Self
}

extension JSONFile {
    /// Reads a whole file: the value, and nothing after it but white space.
    ///
    /// - Parameter json: The file's bytes.
    /// - Returns: The value.
    /// - Throws: ``JSONReadError`` naming the place of anything wrong: a missing, repeated or unknown key, a value of
    ///   the wrong kind, or text after the value.
    package static func read(json: [UInt8]) throws(JSONReadError) -> Self {
        try JSONReader.read(json) { (reader: inout JSONReader) throws(JSONReadError) in try read(&reader) }
    }
}
