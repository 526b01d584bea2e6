extension SyncPartition {
    /// The declared type of that name, with its partition.
    ///
    /// - Parameter name: The record type's name.
    /// - Returns: The type, as the model type of its partition; `nil` when the schema does not declare it.
    public func partitionedType(named name: String) -> PartitionedType? {
        switch partition(of: name) {
        case .userCreated?: (try? userCreatedType(name)).map(PartitionedType.userCreated)
        case .localOnly?: (try? modelType(name) as ModelType<LocalOnly>).map(PartitionedType.localOnly)
        case nil: nil
        }
    }
}
