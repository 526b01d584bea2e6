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
    ///   - typeName: The record type.
    ///   - name: The record's name.
    ///   - fields: Its fields.
    /// - Returns: The record as stored (durably, with its pending change when it is user-created).
    /// - Throws: ``StoreError``: `invalidName` for a name CloudKit would refuse, `nameInUse` for a name already on
    ///   the device, `unknownType` for a type the schema does not declare, or what the store refuses.
    @discardableResult
    public func add(
        _ typeName: String, name: String, fields: [String: FieldValue]
    ) throws(StoreError)
        -> StoredRecord
    {
        if let problem = CloudKitNames.problem(withRecordName: name) {
            throw StoreError(.invalidName, "invalid record name: \(problem)")
        }
        if try find(name) != nil {
            throw StoreError(
                .nameInUse, "a record named \(CloudKitNames.quoted(name)) already exists on \(device.name)")
        }
        let account = device.session.account
        switch partition.partition(of: typeName) {
        case .userCreated?:
            let type: ModelType<UserCreated> = try declaredModelType(typeName)
            return try stores.userCreated.insert(type, fields: fields, writtenUnder: account, name: name)
        case .localOnly?:
            let type: ModelType<LocalOnly> = try declaredModelType(typeName)
            return try stores.localOnly.insert(type, fields: fields, writtenUnder: account, name: name)
        case nil:
            let known = partition.schema.recordTypes.map(\.name).joined(separator: ", ")
            throw StoreError(
                .unknownType, "unknown record type \(CloudKitNames.quoted(typeName)) (known types: \(known))")
        }
    }

    /// The model type of a declared type, refused as a store refuses a type of the other partition.
    private func declaredModelType<Kind: PartitionKind>(_ name: String) throws(StoreError) -> ModelType<Kind> {
        do {
            return try partition.modelType(name)
        } catch {
            throw StoreError(.wrongPartition, error.message)
        }
    }
}
