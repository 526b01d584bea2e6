/// The kinds of ``SchemaError``. Numbered from 1 in the order declared; a new kind is added at the end, so a
/// number never changes.
public enum SchemaErrorCode: Int, Sendable, Hashable {
    /// A type or field name that is not a CloudKit identifier, or is reserved.
    case invalidName = 1
    /// A type or field declared twice.
    case duplicate
    /// A type with more fields than CloudKit allows.
    case tooManyFields
    /// A field type that is not one of CloudKit's.
    case unknownFieldType
    /// A partition list that names a type the schema does not declare.
    case unknownType
    /// A type in both partition lists.
    case inBothLists
    /// A type in neither partition list.
    case inNeitherList
    /// A schema file that cannot be read or is not valid JSON of the documented shape.
    case malformedFile
}

/// A schema or partition that cannot be used: what is wrong, naming the type or field.
public typealias SchemaError = CodedError<SchemaErrorCode>
