public import PrivateCloud
public import PrivateSync

/// A whole world at a glance, read-only: every device with its stores by type and its status, and every account's
/// container (the world page of `privatesync inspect --html`, a local counterpart of CloudKit Console).
public struct WorldOverview: Sendable, Hashable {
    /// How many records of one type a device or a container holds.
    public struct TypeCount: Sendable, Hashable {
        /// The record type.
        public let type: String
        /// Its partition in the schema: `userCreated`, `localOnly`, or `unknown` for a type the schema lacks.
        public let partition: String
        /// Records of the type.
        public let count: Int
    }

    /// One device, as its last launch left it.
    public struct Device: Sendable, Hashable {
        /// The device's name.
        public let name: String
        /// The account signed in, if any.
        public let account: AccountID?
        /// The signed-in account's status (`available`, `noAccount`, ...).
        public let accountStatus: String
        /// Whether the app's build has the iCloud entitlement for the world's container.
        public let entitlement: Bool
        /// The sync switch.
        public let syncPreference: Bool
        /// Whether the app was ever launched (nothing else is known about a device never launched).
        public let launched: Bool
        /// Records in the user-created store, by type.
        public let userCreated: [TypeCount]
        /// Records in the local-only store, by type.
        public let localOnly: [TypeCount]
        /// Changes not yet accepted by iCloud.
        public let pendingChanges: Int
        /// The status the settings screen shows, when the app was launched.
        public let status: SyncStatus?
    }

    /// One account's private database in the world's container.
    public struct Account: Sendable, Hashable {
        /// The account.
        public let account: AccountID
        /// The devices signed into it now.
        public let devices: [String]
        /// Records in its container, by type.
        public let types: [TypeCount]
        /// All its records.
        public var records: Int { types.reduce(0) { $0 + $1.count } }
    }

    /// The world's container identifier.
    public let containerIdentifier: String
    /// Every device, in name order.
    public let devices: [Device]
    /// Every account known to the world (on disk, or signed in on a device), in name order.
    public let accounts: [Account]
}
