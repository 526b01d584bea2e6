/// A schema or partition that cannot be used: what is wrong, naming the type or field.
public typealias SchemaError = CodedError<SchemaErrorCode>

/// The kinds of ``SchemaError``.
public enum SchemaErrorCode: Int, Sendable, Hashable {
    /// A type or field name that is not a CloudKit identifier, or is reserved.
    case invalidName = 1
    /// A type or field declared twice.
    case duplicate = 2
    /// A type with more fields than CloudKit allows.
    case tooManyFields = 3
    /// A field type that is not one of CloudKit's.
    case unknownFieldType = 4
    /// A partition list that names a type the schema does not declare.
    case unknownType = 5
    /// A type in both partition lists.
    case inBothLists = 6
    /// A type in neither partition list.
    case inNeitherList = 7
    /// A schema file that cannot be read or is not valid JSON of the documented shape.
    case malformedFile = 8
}
