public import PrivateCloud

/// What the operating system knows about a simulated device: its name, the iCloud account signed in and its
/// status, and the app build installed (its entitlements). Stored as `device.json` beside the App Group folder.
public struct DeviceProfile: Encodable, Sendable, Hashable {
    /// The installed app build.
    public struct AppBuild: Encodable, Sendable, Hashable {
        /// A build number, raised by each upgrade.
        public var version: Int

        /// The highest build number a profile may hold, so that raising it can never overflow.
        public static let maximumVersion = 1_000_000_000
        /// `com.apple.developer.icloud-services`.
        public var iCloudServices: [String]
        /// `com.apple.developer.icloud-container-identifiers`.
        public var containerIdentifiers: [String]
        /// What syncs the build's user-created store: the app's own engine, or CKSyncEngine with the app as its
        /// delegate. Written to `device.json` only when it is CKSyncEngine, so that a profile of the app's own engine
        /// reads as it always did; a build keeps it across upgrades.
        public var syncEngine: AppSyncEngine = .appEngine

        /// A build of the app.
        ///
        /// - Parameters:
        ///   - version: Its build number.
        ///   - iCloudServices: `com.apple.developer.icloud-services`.
        ///   - containerIdentifiers: `com.apple.developer.icloud-container-identifiers`.
        ///   - syncEngine: What syncs its user-created store.
        public init(
            version: Int, iCloudServices: [String], containerIdentifiers: [String],
            syncEngine: AppSyncEngine = .appEngine
        ) {
            self.version = version
            self.iCloudServices = iCloudServices
            self.containerIdentifiers = containerIdentifiers
            self.syncEngine = syncEngine
        }

        /// The build's entitlements (identifiers that do not parse are left out: they could never match).
        public var entitlements: Entitlements {
            Entitlements(
                iCloudServices: iCloudServices,
                containerIdentifiers: containerIdentifiers.compactMap { try? ContainerIdentifier($0) })
        }

        /// A build with, or without, the CloudKit entitlement for `identifier`.
        ///
        /// - Parameters:
        ///   - version: Its build number.
        ///   - identifier: The container its entitlement names, or `nil` for a build without the entitlement.
        ///   - syncEngine: What syncs its user-created store.
        /// - Returns: The build.
        public static func build(
            version: Int, withCloudKitFor identifier: ContainerIdentifier?, syncEngine: AppSyncEngine = .appEngine
        ) -> AppBuild {
            AppBuild(
                version: version, iCloudServices: identifier == nil ? [] : ["CloudKit"],
                containerIdentifiers: identifier.map { [$0.rawValue] } ?? [], syncEngine: syncEngine)
        }

        private enum CodingKeys: String, CodingKey {
            case version, iCloudServices, containerIdentifiers, syncEngine
        }

        /// Writes the build; the engine only when it is not the app's own.
        ///
        /// - Parameter encoder: The encoder.
        /// - Throws: What the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(version, forKey: .version)
            try container.encode(iCloudServices, forKey: .iCloudServices)
            try container.encode(containerIdentifiers, forKey: .containerIdentifiers)
            if syncEngine != .appEngine { try container.encode(syncEngine.rawValue, forKey: .syncEngine) }
        }
    }

    /// The device's name, unique in its world; also its identifier in field versions.
    public var name: String
    /// The signed-in iCloud account, if any.
    public var account: String?
    /// The account status (`available`, `restricted`, …); `noAccount` when no account is signed in.
    public var accountStatus: String
    /// The installed build.
    public var build: AppBuild

    /// The account, parsed.
    public var accountID: AccountID? { account.flatMap { try? AccountID($0) } }

    /// The account status, parsed; an unknown name reads as `couldNotDetermine`.
    public var status: AccountStatus {
        account == nil ? .noAccount : (AccountStatus(name: accountStatus) ?? .couldNotDetermine)
    }
}

/// Device names: they name folders, so they follow the same rules as account names.
public enum DeviceName {
    /// Checks a device name.
    ///
    /// - Parameter name: 1 to 64 ASCII letters, digits, `.`, `_` or `-`, not starting with `.` or `-`.
    /// - Throws: `IdentifierError` saying what is wrong.
    public static func validate(_ name: String) throws(IdentifierError) {
        let bytes = Array(name.utf8)
        func fail(_ problem: String) -> IdentifierError {
            IdentifierError(kind: "device name", value: name, problem: problem)
        }
        if bytes.isEmpty { throw fail("it is empty") }
        if bytes.count > 64 { throw fail("it is \(bytes.count) characters long; at most 64 are allowed") }
        if bytes[0] == UInt8(ascii: ".") || bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "_") {
            throw fail("it must start with an ASCII letter or digit")
        }

        let allowed = Set("._-".utf8)
        let isAllowed = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || allowed.contains(byte)
        }
        if !bytes.allSatisfy(isAllowed) {
            throw fail("only ASCII letters, digits, '.', '_' and '-' are allowed")
        }
    }
}
