import PrivateCloud
import PrivateSyncFileSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The schema file: a schema and its partition, as documented in `docs/schema.md`.
///
/// ```json
/// {
///   "name": "My app",
///   "types": [
///     {"name": "CheckIn", "fields": [{"name": "mood", "type": "int64"}, {"name": "note", "type": "string", "optional": true}]}
///   ],
///   "partition": {"userCreated": ["CheckIn"], "localOnly": []}
/// }
/// ```
extension SyncPartition {
    /// The schema file's shape, as written by ``jsonBytes()`` and read by ``File/read(_:)``.
    private struct File: Encodable {
        struct TypeEntry: Encodable {
            var name: String
            var fields: [FieldEntry]
        }

        struct FieldEntry: Encodable {
            var name: String
            var type: String
            var optional: Bool?
        }

        struct Lists: Encodable {
            var userCreated: [String]
            var localOnly: [String]
        }

        var name: String
        var types: [TypeEntry]
        var partition: Lists

        /// Reads the file, refusing unknown and repeated keys so that a misspelt `optinal` is not ignored.
        static func read(_ reader: inout JSONReader) throws(JSONReadError) -> File {
            var name: String?
            var types: [TypeEntry]?
            var partition: Lists?
            var first = true
            try reader.beginObject(at: "the top level")
            while let key = try reader.nextKey(&first, at: "the top level") {
                switch key {
                case "name" where name == nil: name = try reader.string(at: "name")
                case "types" where types == nil: types = try readTypes(&reader)
                case "partition" where partition == nil: partition = try readLists(&reader)
                case "name", "types", "partition": throw reader.repeatedKey(key, at: "the top level")
                default: throw reader.unknownKey(key, at: "the top level")
                }
            }
            guard let name else { throw reader.missingKey("name", at: "the top level") }
            guard let types else { throw reader.missingKey("types", at: "the top level") }
            guard let partition else { throw reader.missingKey("partition", at: "the top level") }
            return File(name: name, types: types, partition: partition)
        }

        static func readTypes(_ reader: inout JSONReader) throws(JSONReadError) -> [TypeEntry] {
            var entries: [TypeEntry] = []
            var firstType = true
            try reader.beginArray(at: "types")
            while try reader.nextElement(&firstType, at: "types") {
                let type = entries.count
                var name: String?
                var fields: [FieldEntry]?
                var first = true
                try reader.beginObject(at: "types[\(type)]")
                while let key = try reader.nextKey(&first, at: "types[\(type)]") {
                    switch key {
                    case "name" where name == nil: name = try reader.string(at: "types[\(type)].name")
                    case "fields" where fields == nil: fields = try readFields(&reader, ofType: type)
                    case "name", "fields": throw reader.repeatedKey(key, at: "types[\(type)]")
                    default: throw reader.unknownKey(key, at: "types[\(type)]")
                    }
                }
                guard let name else { throw reader.missingKey("name", at: "types[\(type)]") }
                guard let fields else { throw reader.missingKey("fields", at: "types[\(type)]") }
                entries.append(TypeEntry(name: name, fields: fields))
            }
            return entries
        }

        static func readFields(_ reader: inout JSONReader, ofType type: Int) throws(JSONReadError) -> [FieldEntry] {
            var entries: [FieldEntry] = []
            var firstField = true
            try reader.beginArray(at: "types[\(type)].fields")
            while try reader.nextElement(&firstField, at: "types[\(type)].fields") {
                let field = entries.count
                var name: String?
                var fieldType: String?
                var optional: Bool?
                var first = true
                try reader.beginObject(at: "types[\(type)].fields[\(field)]")
                while let key = try reader.nextKey(&first, at: "types[\(type)].fields[\(field)]") {
                    switch key {
                    case "name" where name == nil:
                        name = try reader.string(at: "types[\(type)].fields[\(field)].name")
                    case "type" where fieldType == nil:
                        fieldType = try reader.string(at: "types[\(type)].fields[\(field)].type")
                    case "optional" where optional == nil:
                        optional = try reader.bool(at: "types[\(type)].fields[\(field)].optional")
                    case "name", "type", "optional":
                        throw reader.repeatedKey(key, at: "types[\(type)].fields[\(field)]")
                    default: throw reader.unknownKey(key, at: "types[\(type)].fields[\(field)]")
                    }
                }
                guard let name else { throw reader.missingKey("name", at: "types[\(type)].fields[\(field)]") }
                guard let fieldType else {
                    throw reader.missingKey("type", at: "types[\(type)].fields[\(field)]")
                }
                entries.append(FieldEntry(name: name, type: fieldType, optional: optional))
            }
            return entries
        }

        static func readLists(_ reader: inout JSONReader) throws(JSONReadError) -> Lists {
            var userCreated: [String]?
            var localOnly: [String]?
            var first = true
            try reader.beginObject(at: "partition")
            while let key = try reader.nextKey(&first, at: "partition") {
                switch key {
                case "userCreated" where userCreated == nil:
                    userCreated = try reader.strings(at: "partition.userCreated")
                case "localOnly" where localOnly == nil: localOnly = try reader.strings(at: "partition.localOnly")
                case "userCreated", "localOnly": throw reader.repeatedKey(key, at: "partition")
                default: throw reader.unknownKey(key, at: "partition")
                }
            }
            guard let userCreated else { throw reader.missingKey("userCreated", at: "partition") }
            guard let localOnly else { throw reader.missingKey("localOnly", at: "partition") }
            return Lists(userCreated: userCreated, localOnly: localOnly)
        }
    }

    /// Loads a schema file.
    ///
    /// - Parameter path: The file.
    /// - Returns: The partition, with its schema.
    /// - Throws: ``SchemaError`` naming the file and what is wrong with it.
    public static func load(fromFile path: String) throws(SchemaError) -> SyncPartition {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path)
        } catch {
            throw SchemaError(.malformedFile, "cannot read the schema file", underlying: error)
        }
        return try decode(json: bytes, source: path)
    }

    /// Reads a schema from JSON text.
    ///
    /// The file is read with the package's own `JSONReader` rather than `Codable` (every CLI command loads the
    /// world's schema, and `Codable` made that a third of `privatesync sync status`'s time). Keys it does not know
    /// are refused, so that a misspelt `optinal` is not silently ignored.
    ///
    /// - Parameters:
    ///   - json: The text.
    ///   - source: Where it came from, for messages.
    /// - Returns: The partition, with its schema.
    /// - Throws: ``SchemaError`` saying where in the text the problem is.
    public static func decode(json: [UInt8], source: String) throws(SchemaError) -> SyncPartition {
        let file: File
        do {
            file = try JSONReader.read(json) { (reader: inout JSONReader) throws(JSONReadError) in
                try File.read(&reader)
            }
        } catch {
            throw SchemaError(.malformedFile, "schema \(source)", underlying: error)
        }
        var types: [RecordTypeSchema] = []
        for entry in file.types {
            var fields: [FieldSchema] = []
            for field in entry.fields {
                guard let type = FieldType(name: field.type) else {
                    throw SchemaError(
                        .unknownFieldType,
                        "schema \(source): record type \(entry.name), field \(field.name): unknown type "
                            + "\"\(field.type)\" (use string, int64, double, bool, bytes, date, reference, location, "
                            + "or list<…> of one of them)")
                }
                fields.append(FieldSchema(name: field.name, type: type, isOptional: field.optional ?? false))
            }
            types.append(RecordTypeSchema(name: entry.name, fields: fields))
        }
        do {
            let schema = try Schema(name: file.name, recordTypes: types)
            return try SyncPartition(
                schema: schema, userCreated: file.partition.userCreated, localOnly: file.partition.localOnly)
        } catch {
            throw SchemaError(error.code, "schema \(source)", underlying: error)
        }
    }

    /// The partition as a schema file: pretty-printed JSON, keys in a fixed order, ending in a newline.
    public func jsonBytes() -> [UInt8] {
        let file = File(
            name: schema.name,
            types: schema.recordTypes.map { type in
                File.TypeEntry(
                    name: type.name,
                    fields: type.fields.map {
                        File.FieldEntry(name: $0.name, type: $0.type.name, optional: $0.isOptional ? true : nil)
                    })
            },
            partition: File.Lists(userCreated: userCreatedTypes, localOnly: localOnlyTypes))
        // Strings, booleans and arrays of them always encode.
        return (try? JSONFileWriter.bytes(of: file)) ?? []
    }
}
