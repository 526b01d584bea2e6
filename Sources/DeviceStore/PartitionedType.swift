/// A record type of the schema with the partition it belongs to, known by its type: what picks the store a record
/// goes to, so that no caller dispatches on a type's name.
public enum PartitionedType: Sendable, Hashable, CustomStringConvertible {
    /// A user-created type: its records go to the user-created store.
    case userCreated(ModelType<UserCreated>)
    /// A local-only type: its records go to the local-only store.
    case localOnly(ModelType<LocalOnly>)

    /// The record type's name.
    public var name: String {
        switch self {
        case .userCreated(let type): type.name
        case .localOnly(let type): type.name
        }
    }

    /// The partition it belongs to.
    public var partition: Partition {
        switch self {
        case .userCreated: .userCreated
        case .localOnly: .localOnly
        }
    }

    public var description: String { name }
}
