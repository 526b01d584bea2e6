import PartitionMirror
import PrivateSync

extension CLI {
    /// The mirror of a device whose build is CKSyncEngine's delegate, opened over its app (waiting while another
    /// command's mirror of the device runs), or `nil` for a build of the app's own engine.
    ///
    /// - Parameter app: The app, resumed for a command that writes.
    /// - Returns: The mirror, or `nil`.
    /// - Throws: ``MirrorError`` when its folder or its bookkeeping cannot be used.
    func mirroredApp(_ app: LaunchedApp) throws -> MirroredApp? {
        try MirroredApp.open(app)
    }

    /// Whether the device's build is CKSyncEngine's delegate (`device add --engine cksyncengine`).
    ///
    /// - Parameter app: The app.
    /// - Returns: Whether the mirror syncs its store.
    func isMirrored(_ app: LaunchedApp) -> Bool {
        app.device.profile.build.syncEngine == .cksyncengine
    }
}
