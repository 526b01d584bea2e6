import PrivateSync

extension LaunchStep {
    /// The step in words, as `launch` lists it.
    var text: String {
        switch self {
        case .readSyncPreference(let on): "read the sync preference: \(on ? "on" : "off")"
        case .skippedDirectoryFix: "skipped creating Library/Application Support (the first trap's fix is off)"
        case .applicationSupport(let existed):
            existed ? "Library/Application Support exists" : "created Library/Application Support"
        case .skippedEntitlementCheck: "skipped the entitlement check (the second trap's fix is off)"
        case .checkedEntitlement(let identifier, let allowed):
            allowed
                ? "checked the entitlement: \(identifier) is allowed"
                : "checked the entitlement: missing for \(identifier); falling back to local"
        case .checkedAccount(let status, let fallsBack):
            "checked the account: \(status)" + (fallsBack ? "; falling back to local" : "")
        case .openedLocalOnlyStore: "opened the local-only store (local)"
        case .openedUserCreatedStore(let cloud):
            "opened the user-created store (\(cloud.map { "cloud, \($0)" } ?? "local"))"
        case .cloudStoreFailed(let detail): "opening the cloud store failed: \(detail); falling back to local"
        case .openedBothStoresLocally: "opened both stores locally (a local store recovers by creating its folder)"
        case .startedEngine: "opened the container and started the engine"
        case .noContainer: "sync does not run: no container opened"
        case .earlierBuild(let text): text
        }
    }
}
