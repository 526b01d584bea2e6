import PrivateCloud
import PrivateSyncFileSystem
import PrivateSyncJSON

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
    private struct File: Encodable, JSONFile {
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
            let file = try reader.objectOfRequiredKeys(
                at: "the top level", keys: ["name", "types", "partition"],
                filling: File(name: "", types: [], partition: Lists(userCreated: [], localOnly: []))
            ) { key, reader, file throws(JSONReadError) in
                switch key {
                case "name": file.name = try reader.string(at: "name")
                case "types":
                    file.types = try reader.array(at: "types") { index, reader throws(JSONReadError) in
                        try readType(&reader, at: "types[\(index)]")
                    }
                default: file.partition = try readLists(&reader)
                }
            }
            return file
        }

        static func readType(_ reader: inout JSONReader, at place: String) throws(JSONReadError) -> TypeEntry {
            let entry = try reader.objectOfRequiredKeys(
                at: place, keys: ["name", "fields"], filling: TypeEntry(name: "", fields: [])
            ) { key, reader, entry throws(JSONReadError) in
                switch key {
                case "name": entry.name = try reader.string(at: "\(place).name")
                default:
                    entry.fields = try reader.array(at: "\(place).fields") { index, reader throws(JSONReadError) in
                        try readField(&reader, at: "\(place).fields[\(index)]")
                    }
                }
            }
            return entry
        }

        static func readField(_ reader: inout JSONReader, at place: String) throws(JSONReadError) -> FieldEntry {
            // Placeholders, each replaced: `object` refuses an object without one of `required`.
            var field = FieldEntry(name: "", type: "", optional: nil)
            let keys = ["name", "type", "optional"]
            try reader.object(at: place, keys: keys, required: ["name", "type"]) { key, reader throws(JSONReadError) in
                switch key {
                case "name": field.name = try reader.string(at: "\(place).name")
                case "type": field.type = try reader.string(at: "\(place).type")
                default: field.optional = try reader.bool(at: "\(place).optional")
                }
            }
            return field
        }

        static func readLists(_ reader: inout JSONReader) throws(JSONReadError) -> Lists {
            let lists = try reader.objectOfRequiredKeys(
                at: "partition", keys: ["userCreated", "localOnly"], filling: Lists(userCreated: [], localOnly: [])
            ) { key, reader, lists throws(JSONReadError) in
                switch key {
                case "userCreated": lists.userCreated = try reader.strings(at: "partition.userCreated")
                default: lists.localOnly = try reader.strings(at: "partition.localOnly")
                }
            }
            return lists
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
            file = try File.read(json: json)
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
