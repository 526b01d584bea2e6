import PrivateCloud

/// One step of a launch, as ``LaunchSequence`` took it (see docs/launch.md for the six steps): what a
/// ``LaunchRecord`` lists, and the CLI shows in words.
public enum LaunchStep: Sendable, Hashable {
    /// Step 1: the user's sync preference was read.
    case readSyncPreference(on: Bool)
    /// Step 2, skipped: `Library/Application Support` was not created (the first trap's fix is off).
    case skippedDirectoryFix
    /// Step 2: `Library/Application Support` existed already, or was created.
    case applicationSupport(existed: Bool)
    /// Step 3, skipped: the entitlement was not checked (the second trap's fix is off).
    case skippedEntitlementCheck
    /// Step 3: the build's entitlement for the container was checked; without it the launch falls back to local.
    case checkedEntitlement(ContainerIdentifier, allowed: Bool)
    /// Step 3: the account status was checked; a status that cannot sync makes the launch fall back to local.
    case checkedAccount(AccountStatus, fallsBack: Bool)
    /// Step 4: the local-only store was opened, locally.
    case openedLocalOnlyStore
    /// Step 5: the user-created store was opened, mirrored to this container, or locally when `nil`.
    case openedUserCreatedStore(cloud: ContainerIdentifier?)
    /// Step 5: opening the cloud store failed with this error; the launch falls back to local.
    case cloudStoreFailed(String)
    /// Step 5: both stores were opened locally, after the cloud store failed (a local store creates its folder).
    case openedBothStoresLocally
    /// Step 6: the container was opened and the engine started.
    case startedEngine
    /// Step 6: no container was opened, so sync does not run.
    case noContainer
    /// A step as a launch record of an earlier build worded it (those recorded steps as text); read, never written.
    case earlierBuild(String)
}
