import FileSystem
import FoundationEssentials
import PrivateCloud

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
    private struct File: Codable {
        struct TypeEntry: Codable {
            var name: String
            var fields: [FieldEntry]
        }

        struct FieldEntry: Codable {
            var name: String
            var type: String
            var optional: Bool?
        }

        struct Lists: Codable {
            var userCreated: [String]
            var localOnly: [String]
        }

        var name: String
        var types: [TypeEntry]
        var partition: Lists
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
            throw SchemaError(.malformedFile, "cannot read the schema file: \(error)")
        }
        return try decode(json: bytes, source: path)
    }

    /// Reads a schema from JSON text.
    ///
    /// - Parameters:
    ///   - json: The text.
    ///   - source: Where it came from, for messages.
    /// - Returns: The partition, with its schema.
    /// - Throws: ``SchemaError`` saying where in the text the problem is.
    public static func decode(json: [UInt8], source: String) throws(SchemaError) -> SyncPartition {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(json))
        } catch let error as DecodingError {
            throw SchemaError(.malformedFile, "schema \(source): \(Self.describe(error))")
        } catch {
            throw SchemaError(.malformedFile, "schema \(source): \(error)")
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
            throw SchemaError(error.code, "schema \(source): \(error.message)")
        }
    }

    /// The partition as schema-file JSON (pretty-printed, keys in a fixed order).
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return Array((try? encoder.encode(file)) ?? Data())
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let parts = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }
            let joined = parts.joined()
            return joined.isEmpty ? "the top level" : String(joined.drop { $0 == "." })
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context)) is missing the key \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return "\(path(context)) should be \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "\(path(context)) should be \(type) but is null"
        case .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
