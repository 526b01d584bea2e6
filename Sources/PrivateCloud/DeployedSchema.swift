/// The record types of a container's production schema, deployed before any record is saved.
///
/// In CloudKit's development environment a field's type is fixed by its first save; once the schema is deployed to
/// production, no client can change a deployed field's type: a save that gives one a value of another type is
/// refused (`invalidArguments`). Without a deployed schema here, any client (an old build, a web client, a hostile
/// one) that saved `CheckIn.mood` as a string first would make every device's CheckIn fail to upload forever. A
/// container given a deployed schema behaves as production does for its types and fields; a type or field it does
/// not name is still created by its first save, as in development.
public struct DeployedSchema: Sendable, Hashable {
    /// The type of each deployed field, by record type and field name.
    public let fieldTypes: [String: [String: FieldType]]

    /// A schema deploying these field types.
    ///
    /// - Parameter fieldTypes: The type of each field, by record type and field name.
    public init(fieldTypes: [String: [String: FieldType]]) {
        self.fieldTypes = fieldTypes
    }

    /// No deployed types: every field's type is fixed by its first save, as in the development environment.
    public static let none = DeployedSchema(fieldTypes: [:])
}
