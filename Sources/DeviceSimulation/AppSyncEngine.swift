/// What syncs an app build's user-created store to the user's private database.
///
/// A property of the build, as on a device: an app either runs its own engine or is CKSyncEngine's delegate, and an
/// upgrade keeps what the installed build used (moving a store from one to the other is a migration this toolkit
/// does not model).
public enum AppSyncEngine: String, Sendable, Hashable, CaseIterable, Encodable {
    /// The app's own engine (`SyncEngine`): the default, and every build installed before the choice existed.
    case appEngine = "app"
    /// The CKSyncEngine-shaped engine, with the app's sync written as its delegate (`PartitionMirror`).
    case cksyncengine
}
