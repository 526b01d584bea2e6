public import DeviceStore
public import PrivateCloud
public import PrivateSync

extension LaunchedApp {
    /// Adds a record under a name the app chose, as apps that derive names from their data do (and as two devices
    /// creating "the same" record do).
    ///
    /// The name is checked exactly as CloudKit checks record names, and must not be held by any record on the
    /// device, in either store. A name whose record was deleted may be used again.
    ///
    /// - Parameters:
    ///   - type: The record type, with its partition: it picks the store.
    ///   - name: The record's name.
    ///   - fields: Its fields.
    /// - Returns: The record as stored (durably, with its pending change when it is user-created).
    /// - Throws: ``StoreError``: `invalidName` for a name CloudKit would refuse, `nameInUse` for a name already on
    ///   the device, or what the store refuses.
    @discardableResult
    public func add(
        _ type: PartitionedType, name: String, fields: [String: FieldValue]
    ) throws(StoreError)
        -> StoredRecord
    {
        try checkChosenName(name)
        return try insert(type, name: name, fields: fields)
    }

    /// Adds a record of the type of that name under a name the app chose, for a caller that has the type's name
    /// only: the name is checked first, then the type looked up, then the record added as
    /// ``add(_:name:fields:)-(PartitionedType,_,_)`` adds it.
    ///
    /// - Throws: ``StoreError``: what that throws, or `unknownType` for a type the schema does not declare.
    @discardableResult
    public func add(
        _ typeName: String, name: String, fields: [String: FieldValue]
    ) throws(StoreError)
        -> StoredRecord
    {
        try checkChosenName(name)
        return try insert(declaredType(typeName), name: name, fields: fields)
    }

    /// Refuses a name CloudKit would refuse, or one a record on the device holds.
    private func checkChosenName(_ name: String) throws(StoreError) {
        if let problem = CloudKitNames.problem(withRecordName: name) {
            throw StoreError(.invalidName, "invalid record name: \(problem)")
        }
        if try find(name) != nil {
            throw StoreError(
                .nameInUse, "a record named \(CloudKitNames.quoted(name)) already exists on \(device.name)")
        }
    }

    /// Inserts a record under a name already checked, into the store of its type's partition.
    private func insert(
        _ type: PartitionedType, name: String, fields: [String: FieldValue]
    ) throws(StoreError)
        -> StoredRecord
    {
        try stores.insert(type, chosenName: name, fields: fields, writtenUnder: device.session.account)
    }
}
