/// The iCloud entitlements an app build was signed with.
public struct Entitlements: Sendable, Hashable {
    /// `com.apple.developer.icloud-services`: must contain `CloudKit` for CloudKit to be usable.
    public var iCloudServices: [String]
    /// `com.apple.developer.icloud-container-identifiers`: the containers the app may open.
    public var containerIdentifiers: [ContainerIdentifier]

    /// Creates entitlements.
    public init(iCloudServices: [String], containerIdentifiers: [ContainerIdentifier]) {
        self.iCloudServices = iCloudServices
        self.containerIdentifiers = containerIdentifiers
    }

    /// A build with CloudKit and the given containers.
    public static func cloudKit(_ identifiers: [ContainerIdentifier]) -> Entitlements {
        Entitlements(iCloudServices: ["CloudKit"], containerIdentifiers: identifiers)
    }

    /// A build with no iCloud entitlement at all.
    public static let none = Entitlements(iCloudServices: [], containerIdentifiers: [])

    /// Why opening `identifier` would trap, or `nil` when the entitlements allow it.
    ///
    /// - Parameter identifier: The container to open.
    /// - Returns: The line CloudKit logs before trapping, or `nil`.
    public func missingEntitlement(for identifier: ContainerIdentifier) -> String? {
        if !iCloudServices.contains("CloudKit") && !iCloudServices.contains("CloudKit-Anonymous") {
            return "In order to use CloudKit, your process must have a com.apple.developer.icloud-services "
                + "entitlement. The value of this entitlement must be an array that includes the string \"CloudKit\" "
                + "or \"CloudKit-Anonymous\"."
        }
        if !containerIdentifiers.contains(identifier) {
            return "The container identifier \"\(identifier)\" is not listed in the "
                + "com.apple.developer.icloud-container-identifiers entitlement of this process."
        }
        return nil
    }

    /// Whether the build may open `identifier` without trapping.
    public func permits(_ identifier: ContainerIdentifier) -> Bool {
        missingEntitlement(for: identifier) == nil
    }
}
