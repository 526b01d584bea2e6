public import PrivateCloud

/// One store of a device: a name, a folder, and whether it mirrors to CloudKit, as SwiftData's
/// `ModelConfiguration`.
public struct StoreConfiguration: Sendable, Hashable {
    /// Whether the store mirrors to a CloudKit database.
    public enum CloudKitDatabase: Sendable, Hashable, CustomStringConvertible {
        /// A plain local store.
        case none
        /// A store mirrored to the user's private database in this container.
        case `private`(ContainerIdentifier)

        public var description: String {
            switch self {
            case .none: "local"
            case .private(let identifier): "cloud (\(identifier))"
            }
        }
    }

    /// The configuration's name; the file is `<name>.store`, as SwiftData names `default.store`.
    public let name: String
    /// The folder that holds the file: the App Group's `Library/Application Support`.
    public let directory: String
    /// Local or cloud.
    public let cloudKitDatabase: CloudKitDatabase

    /// Creates a configuration.
    public init(name: String, directory: String, cloudKitDatabase: CloudKitDatabase) {
        self.name = name
        self.directory = directory
        self.cloudKitDatabase = cloudKitDatabase
    }

    /// The store file.
    public var path: String { directory + "/" + name + ".store" }

    /// Whether the store mirrors to CloudKit.
    public var isCloud: Bool { cloudKitDatabase != .none }

    /// The configuration name of the user-created store.
    public static let userCreatedName = "UserCreated"
    /// The configuration name of the local-only store.
    public static let localOnlyName = "LocalOnly"
}
