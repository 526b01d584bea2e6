import PrivateSyncSQLite

extension Statement {
    /// Binds `fields` encoded as ``FieldsJSON/encode(_:)`` encodes them, written straight into the memory SQLite
    /// keeps: a record's fields can be a megabyte, which an array and SQLite's own copy of it would each copy once
    /// more (`make bench`, `simulated_speedup`).
    ///
    /// - Parameters:
    ///   - fields: The fields.
    ///   - index: The parameter's 1-based index.
    /// - Throws: ``SQLiteError`` when memory cannot be had or SQLite refuses the value.
    package func bindFields(_ fields: [String: FieldValue], at index: Int32) throws(SQLiteError) {
        let sorted = FieldsJSON.sortedFields(fields)
        try bindText(at: index, estimate: FieldsJSON.estimatedSize(sorted: sorted)) { base, capacity in
            var writer = FieldsWriter(base: base, capacity: capacity)
            writer.write(sorted)
            return writer.count
        }
    }
}
