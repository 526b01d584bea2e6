/// Reads the small JSON files the app and the world keep (a world's settings, a device's profile and preferences, a
/// launch record, a schema) by walking their fixed shape with `JSONScanner`, naming the place of anything wrong.
/// Each file's reader sits beside its type, in the module that owns the file; ``JSONFileWriter`` writes them all.
///
/// Why not `Codable`: every `privatesync` command is a fresh process that reads a few of these files, and in a
/// process that runs once, `JSONDecoder`'s first use (its generic instantiations and dynamic casts, each a scan of
/// every protocol conformance in the binary) cost more than the command's own work. See docs/benchmarks.md,
/// `status_vs_sqlite3`. So these types are `Encodable` only: writing goes through `JSONEncoder`, which these readers
/// read back exactly.
///
/// Places are autoclosures, so a path such as `types[3].fields[0].name` is only spelt out when something there is
/// wrong.
package struct JSONReader: ~Copyable {
    private var scanner: JSONScanner

    /// A reader over `bytes`, which must outlive it.
    package init(_ bytes: UnsafeRawBufferPointer) {
        scanner = JSONScanner(bytes)
    }

    /// Reads a whole file: `body` reads its one value, and nothing but white space may follow.
    ///
    /// - Parameters:
    ///   - json: The file's bytes.
    ///   - body: Reads the value.
    /// - Returns: What `body` read.
    /// - Throws: ``JSONReadError`` from `body`, or for text after the value.
    package static func read<Value>(
        _ json: [UInt8], _ body: (inout JSONReader) throws(JSONReadError) -> Value
    ) throws(JSONReadError) -> Value {
        // Two optionals rather than a `Result`: making the metadata of `Result<Value, JSONReadError>` checks at run
        // time that `JSONReadError` is an `Error`, a scan of every protocol conformance in the binary (callgrind,
        // `sync status`: 169k of its 7.0M instructions).
        var value: Value?
        var failure: JSONReadError?
        json.withUnsafeBytes { bytes in
            var reader = JSONReader(bytes)
            do throws(JSONReadError) {
                let read = try body(&reader)
                try reader.end()
                value = read
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        // One of the two is set: the closure ran once and either returned a value or caught an error.
        return value!
    }

    /// Whether the next value is a string (a file written by an earlier build may hold a string where this one
    /// writes an object).
    package mutating func nextIsString() -> Bool {
        scanner.peek() == UInt8(ascii: "\"")
    }

    /// Consumes the `{` of an object.
    package mutating func beginObject(at place: @autoclosure () -> String) throws(JSONReadError) {
        guard scanner.consume(UInt8(ascii: "{")) else { throw problem(place(), "should be an object") }
    }

    /// The next key of the object being read, its colon consumed; `nil` at the closing brace.
    ///
    /// - Parameters:
    ///   - first: `true` before the object's first key; the reader keeps it up to date.
    ///   - place: The object's place, for messages.
    package mutating func nextKey(
        _ first: inout Bool, at place: @autoclosure () -> String
    ) throws(JSONReadError) -> String? {
        do throws(JSONScanError) {
            if first {
                first = false
                if scanner.consume(UInt8(ascii: "}")) { return nil }
            } else if !scanner.consume(UInt8(ascii: ",")) {
                try scanner.expect(UInt8(ascii: "}"))
                return nil
            }
            let key = try scanner.readString()
            try scanner.expect(UInt8(ascii: ":"))
            return key
        } catch {
            throw scanProblem(error, place())
        }
    }

    /// Reads an object whose keys are among `keys`, each at most once, and which has every key in `required`: `body`
    /// reads the value of each key met, in the file's order. A key not in `keys`, or one given twice, is refused (so
    /// that a misspelt key is not ignored), and so is an object without one of `required`, once all of it is read,
    /// naming the first of `required` it lacks. A value `body` keeps for a required key is therefore set when this
    /// returns.
    ///
    /// - Parameters:
    ///   - place: The object's place, for messages.
    ///   - keys: The keys the object may have (at most 64).
    ///   - required: The keys among `keys` it must have, in the order a missing one is looked for.
    ///   - body: Reads the value of `key` with the reader it is given.
    /// - Throws: ``JSONReadError`` for something other than an object, an unknown, repeated or missing key, or what
    ///   `body` throws.
    package mutating func object(
        at place: @autoclosure () -> String, keys: [String], required: [String],
        _ body: (_ key: String, _ reader: inout JSONReader) throws(JSONReadError) -> Void
    ) throws(JSONReadError) {
        var seen: UInt64 = 0
        var first = true
        try beginObject(at: place())
        while let key = try nextKey(&first, at: place()) {
            guard let index = keys.firstIndex(of: key) else { throw unknownKey(key, at: place()) }
            guard seen & (1 << index) == 0 else { throw repeatedKey(key, at: place()) }
            seen |= 1 << index
            try body(key, &self)
        }
        for key in required {
            guard let index = keys.firstIndex(of: key), seen & (1 << index) != 0 else {
                throw missingKey(key, at: place())
            }
        }
    }

    /// Reads an object every key of which is required into `value`, a value of placeholders: each is replaced, since
    /// an object without one of `keys` is refused, so no placeholder is ever returned.
    ///
    /// - Parameters:
    ///   - place: The object's place, for messages.
    ///   - keys: The object's keys, each required, each at most once.
    ///   - value: The value to fill.
    ///   - body: Reads the value of `key` into the value.
    /// - Returns: The value, with every key's part read.
    /// - Throws: `JSONReadError` for an unknown, repeated or missing key, or what `body` throws.
    package mutating func objectOfRequiredKeys<Value>(
        at place: @autoclosure () -> String, keys: [String], filling value: Value,
        _ body: (_ key: String, _ reader: inout JSONReader, _ value: inout Value) throws(JSONReadError) -> Void
    ) throws(JSONReadError) -> Value {
        var value = value
        try object(at: place(), keys: keys, required: keys) { key, reader throws(JSONReadError) in
            try body(key, &reader, &value)
        }
        return value
    }

    /// Reads an array, `element` reading each element with its index.
    ///
    /// - Parameters:
    ///   - place: The array's place, for messages (an element's is `place[index]`).
    ///   - element: Reads the element at `index`.
    /// - Returns: The elements.
    /// - Throws: ``JSONReadError`` for something other than an array, or what `element` throws.
    package mutating func array<Element>(
        at place: @autoclosure () -> String,
        _ element: (_ index: Int, _ reader: inout JSONReader) throws(JSONReadError) -> Element
    ) throws(JSONReadError) -> [Element] {
        var elements: [Element] = []
        var first = true
        try beginArray(at: place())
        while try nextElement(&first, at: place()) { elements.append(try element(elements.count, &self)) }
        return elements
    }

    /// Consumes the `[` of an array.
    package mutating func beginArray(at place: @autoclosure () -> String) throws(JSONReadError) {
        guard scanner.consume(UInt8(ascii: "[")) else { throw problem(place(), "should be an array") }
    }

    /// Whether another element of the array being read follows (its comma consumed); false at the closing bracket.
    package mutating func nextElement(
        _ first: inout Bool, at place: @autoclosure () -> String
    ) throws(JSONReadError) -> Bool {
        do throws(JSONScanError) {
            if first {
                first = false
                return !scanner.consume(UInt8(ascii: "]"))
            }
            if scanner.consume(UInt8(ascii: ",")) { return true }
            try scanner.expect(UInt8(ascii: "]"))
            return false
        } catch {
            throw scanProblem(error, place())
        }
    }

    /// Reads a string.
    package mutating func string(at place: @autoclosure () -> String) throws(JSONReadError) -> String {
        guard scanner.peek() == UInt8(ascii: "\"") else { throw problem(place(), "should be a string") }
        do throws(JSONScanError) {
            return try scanner.readString()
        } catch {
            throw scanProblem(error, place())
        }
    }

    /// Consumes `null` if it is next, for a value that may be `null`.
    ///
    /// - Returns: Whether it was `null` (and is consumed); if not, the value is left for the reader to read.
    package mutating func consumeNull() -> Bool {
        scanner.consumeNull()
    }

    /// Reads a string, or `null`.
    package mutating func optionalString(at place: @autoclosure () -> String) throws(JSONReadError) -> String? {
        if scanner.consumeNull() { return nil }
        return try string(at: place())
    }

    /// Reads an array of strings.
    package mutating func strings(at place: @autoclosure () -> String) throws(JSONReadError) -> [String] {
        try array(at: place()) { index, reader throws(JSONReadError) in try reader.string(at: "\(place())[\(index)]") }
    }

    /// Reads `true` or `false`.
    package mutating func bool(at place: @autoclosure () -> String) throws(JSONReadError) -> Bool {
        try scalar(at: place(), "should be true or false") { scanner throws(JSONScanError) in try scanner.readBool() }
    }

    /// Reads an integer.
    package mutating func int(at place: @autoclosure () -> String) throws(JSONReadError) -> Int {
        let value = try scalar(at: place(), "should be a whole number") { scanner throws(JSONScanError) in
            try scanner.readInt64()
        }
        guard let result = Int(exactly: value) else { throw problem(place(), "is out of range") }
        return result
    }

    /// Reads a whole number from 0 to `UInt64.max` (a seed).
    package mutating func uint64(at place: @autoclosure () -> String) throws(JSONReadError) -> UInt64 {
        try scalar(at: place(), "should be a whole number from 0 to \(UInt64.max)") { scanner throws(JSONScanError) in
            try scanner.readUInt64()
        }
    }

    /// Reads a number.
    package mutating func double(at place: @autoclosure () -> String) throws(JSONReadError) -> Double {
        try scalar(at: place(), "should be a number") { scanner throws(JSONScanError) in try scanner.readDouble() }
    }

    /// Reads one number or boolean with `read`; whatever the scanner finds wrong is reported as `place` and `text`
    /// (what the value should be), at the byte where the scanner stopped.
    private mutating func scalar<Value>(
        at place: @autoclosure () -> String, _ text: @autoclosure () -> String,
        _ read: (inout JSONScanner) throws(JSONScanError) -> Value
    ) throws(JSONReadError) -> Value {
        do throws(JSONScanError) {
            return try read(&scanner)
        } catch {
            throw problem(place(), text())
        }
    }

    /// Checks that nothing but white space follows the value read.
    package mutating func end() throws(JSONReadError) {
        scanner.skipWhitespace()
        if !scanner.isAtEnd { throw problem("the top level", "is followed by more text") }
    }

    /// The error for a key the shape does not have.
    private func unknownKey(_ key: String, at place: @autoclosure () -> String) -> JSONReadError {
        problem(place(), "has an unknown key \"\(key)\"")
    }

    /// The error for a key given twice.
    package func repeatedKey(_ key: String, at place: @autoclosure () -> String) -> JSONReadError {
        problem(place(), "has the key \"\(key)\" twice")
    }

    /// The error for a required key that is missing.
    private func missingKey(_ key: String, at place: @autoclosure () -> String) -> JSONReadError {
        JSONReadError(message: "\(place()) is missing the key \"\(key)\"")
    }

    /// The error for a value the shape does not allow.
    package func problem(_ place: String, _ text: String) -> JSONReadError {
        JSONReadError(message: "\(place) \(text) (byte \(scanner.offset))")
    }

    private func scanProblem(_ error: JSONScanError, _ place: String) -> JSONReadError {
        JSONReadError(message: "\(place): \(error.problem) at byte \(error.offset)")
    }
}

/// A file that does not have the shape its reader expects: where, and what is wrong.
package struct JSONReadError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, and where, in one sentence.
    package let message: String

    package var description: String { message }
}
