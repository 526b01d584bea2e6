public import PrivateCloud

/// The record types an app declares, with their fields: what a SwiftData model list is to an app.
public struct Schema: Sendable, Hashable {
    /// A descriptive name, such as "Me. (demo health app)".
    public let name: String
    /// The record types, in declaration order.
    public let recordTypes: [RecordTypeSchema]
    private let typesByName: [String: RecordTypeSchema]

    /// The field every synced record carries for per-field conflict resolution; no type may declare it.
    public static let reservedFieldName = "syncFieldVersions"
    /// The reserved field that carries when a record was created on the device that wrote it, so that every device
    /// shows the same creation time (CloudKit's own `creationDate` is the first upload's).
    public static let reservedCreatedAtFieldName = "syncCreatedAt"
    /// Every field name sync reserves.
    public static let reservedFieldNames: Set<String> = [reservedFieldName, reservedCreatedAtFieldName]

    /// Creates a schema, checking every name.
    ///
    /// - Parameters:
    ///   - name: A descriptive name.
    ///   - recordTypes: The record types.
    /// - Throws: ``SchemaError`` naming the first type or field that is invalid or declared twice.
    public init(name: String, recordTypes: [RecordTypeSchema]) throws(SchemaError) {
        var byName: [String: RecordTypeSchema] = [:]
        for type in recordTypes {
            if let problem = CloudKitNames.problem(withIdentifier: type.name, kind: "record type") {
                throw SchemaError(.invalidName, "record type \(CloudKitNames.quoted(type.name)): \(problem)")
            }
            if byName[type.name] != nil {
                throw SchemaError(.duplicate, "record type \(type.name) is declared twice")
            }
            var fieldNames = Set<String>()
            for field in type.fields {
                if let problem = CloudKitNames.problem(withIdentifier: field.name, kind: "field key") {
                    throw SchemaError(
                        .invalidName, "record type \(type.name), field \(CloudKitNames.quoted(field.name)): \(problem)")
                }
                if Self.reservedFieldNames.contains(field.name) {
                    throw SchemaError(
                        .invalidName, "record type \(type.name): the field name \(field.name) is reserved for sync")
                }
                if !fieldNames.insert(field.name).inserted {
                    throw SchemaError(.duplicate, "record type \(type.name) declares field \(field.name) twice")
                }
            }
            if type.fields.count > 255 {
                throw SchemaError(
                    .tooManyFields,
                    "record type \(type.name) declares \(type.fields.count) fields; at most 255 fit beside the sync field"
                )
            }
            byName[type.name] = type
        }
        self.name = name
        self.recordTypes = recordTypes
        self.typesByName = byName
    }

    /// The record type of that name, if declared.
    public func recordType(named name: String) -> RecordTypeSchema? {
        typesByName[name]
    }
}

/// A record type and its fields.
public struct RecordTypeSchema: Sendable, Hashable {
    /// The type's name (a CloudKit record type).
    public let name: String
    /// The fields, in declaration order.
    public let fields: [FieldSchema]

    /// Creates a record type.
    public init(name: String, fields: [FieldSchema]) {
        self.name = name
        self.fields = fields
    }

    /// The field of that name, if declared.
    public func field(named name: String) -> FieldSchema? {
        fields.first { $0.name == name }
    }
}

/// A field of a record type.
public struct FieldSchema: Sendable, Hashable {
    /// The field's key.
    public let name: String
    /// The type of its values.
    public let type: FieldType
    /// Whether a record may lack it.
    public let isOptional: Bool

    /// Creates a field.
    public init(name: String, type: FieldType, isOptional: Bool = false) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
    }
}
