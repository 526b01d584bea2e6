public import PrivateCloud

extension SyncPartition {
    /// The production schema of the app's container: every user-created type with its fields, and the two fields
    /// the app's sync keeps in every record (`syncFieldVersions`, a string; `syncCreatedAt`, a date). A container
    /// given it refuses any client's save that would change one of these types, as CloudKit's production
    /// environment does once the schema is deployed (see `DeployedSchema`); local-only types never reach the
    /// container, so they are not deployed.
    public var deployedSchema: DeployedSchema {
        var types: [String: [String: FieldType]] = [:]
        for name in userCreatedTypes {
            guard let type = schema.recordType(named: name) else { continue }
            var fields: [String: FieldType] = [:]
            for field in type.fields { fields[field.name] = field.type }
            fields[Schema.reservedFieldName] = .string
            fields[Schema.reservedCreatedAtFieldName] = .date
            types[name] = fields
        }
        return DeployedSchema(fieldTypes: types)
    }
}
