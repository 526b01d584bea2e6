import PrivateCloud

/// Which of the two stores a record type lives in.
public enum Partition: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// What the user wrote: may sync to the user's private iCloud database.
    case userCreated
    /// What the device measured or derived: never leaves the device, whatever the sync switch says.
    case localOnly

    public var description: String { rawValue }
}

/// A partition as a type, so that a store of one partition accepts only that partition's record types.
public protocol PartitionKind: Sendable {
    /// The partition.
    static var partition: Partition { get }
}

/// The user-created partition.
public enum UserCreated: PartitionKind {
    public static let partition = Partition.userCreated
}

/// The local-only partition.
public enum LocalOnly: PartitionKind {
    public static let partition = Partition.localOnly
}

/// A record type known to belong to partition `Kind`.
///
/// Only ``SyncPartition`` makes these, and only for types in the matching list, so a local-only type cannot be
/// handed to the user-created store (or the reverse): the compiler refuses it.
public struct ModelType<Kind: PartitionKind>: Sendable, Hashable, CustomStringConvertible {
    /// The record type.
    public let schema: RecordTypeSchema

    fileprivate init(_ schema: RecordTypeSchema) {
        self.schema = schema
    }

    /// The record type's name.
    public var name: String { schema.name }

    public var description: String { name }
}

/// Every record type of a schema, assigned to exactly one of two lists: user-created or local-only.
///
/// This is the product's central decision: what may leave the device. Each list gets its own store file; the
/// user-created store flips between local and CloudKit with the sync switch, the local-only store never syncs.
public struct SyncPartition: Sendable, Hashable {
    /// The schema.
    public let schema: Schema
    /// The user-created types, in the order given.
    public let userCreatedTypes: [String]
    /// The local-only types, in the order given.
    public let localOnlyTypes: [String]
    private let partitionByType: [String: Partition]

    /// Creates a partition, checking that every type of `schema` is in exactly one list.
    ///
    /// - Parameters:
    ///   - schema: The schema.
    ///   - userCreated: The types that may sync.
    ///   - localOnly: The types that never leave the device.
    /// - Throws: ``SchemaError`` naming the first type that is unknown, in both lists, or in neither.
    public init(schema: Schema, userCreated: [String], localOnly: [String]) throws(SchemaError) {
        var byType: [String: Partition] = [:]
        for (list, partition) in [(userCreated, Partition.userCreated), (localOnly, .localOnly)] {
            for type in list {
                guard schema.recordType(named: type) != nil else {
                    throw SchemaError(
                        .unknownType, "the \(partition) list names \(type), which the schema does not declare")
                }
                if let other = byType[type] {
                    throw SchemaError(
                        other == partition ? .duplicate : .inBothLists,
                        other == partition
                            ? "\(type) appears twice in the \(partition) list"
                            : "\(type) is in both lists; a type is either user-created or local-only")
                }
                byType[type] = partition
            }
        }
        if let missing = schema.recordTypes.first(where: { byType[$0.name] == nil }) {
            throw SchemaError(
                .inNeitherList, "\(missing.name) is in neither list; every type must be user-created or local-only")
        }
        self.schema = schema
        self.userCreatedTypes = userCreated
        self.localOnlyTypes = localOnly
        self.partitionByType = byType
    }

    /// The partition of a type, or `nil` for a type the schema does not declare.
    public func partition(of type: String) -> Partition? {
        partitionByType[type]
    }

    /// The user-created type of that name.
    ///
    /// - Throws: ``SchemaError`` when the type is unknown or local-only.
    public func userCreatedType(_ name: String) throws(SchemaError) -> ModelType<UserCreated> {
        try modelType(name)
    }

    /// The local-only type of that name.
    ///
    /// - Throws: ``SchemaError`` when the type is unknown or user-created.
    public func localOnlyType(_ name: String) throws(SchemaError) -> ModelType<LocalOnly> {
        try modelType(name)
    }

    /// The type of that name in partition `Kind`.
    ///
    /// - Throws: ``SchemaError`` when the type is unknown or in the other partition.
    public func modelType<Kind: PartitionKind>(_ name: String) throws(SchemaError) -> ModelType<Kind> {
        guard let partition = partitionByType[name], let schema = schema.recordType(named: name) else {
            throw SchemaError(
                .unknownType, "unknown record type \(CloudKitNames.quoted(name)); the schema declares no such type")
        }
        guard partition == Kind.partition else {
            throw SchemaError(
                .unknownType, "\(name) is a \(partition) type; it cannot be stored with the \(Kind.partition) types")
        }
        return ModelType(schema)
    }
}
