public import PrivateSync
public import PrivateSyncHTML

extension HTMLText {
    /// The colour class of a status, shared by the world page and the timeline: `off`, `uptodate` (on and up to
    /// date), `syncing`, `waiting` (on, waiting to retry), `notyetsynced` (on, the first sync has not run), `paused`.
    ///
    /// - Parameter status: A status.
    /// - Returns: Its CSS class.
    public static func statusClass(_ status: SyncStatus) -> String {
        switch status.state {
        case .off: "off"
        case .on(.upToDate): "uptodate"
        case .on(.syncing): "syncing"
        case .on(.waiting): "waiting"
        case .on(.notYetSynced): "notyetsynced"
        case .paused: "paused"
        }
    }

    /// The CSS of the status classes (fills for SVG shapes, backgrounds for HTML), one colour each.
    public static let statusStyle = """
        .off { fill: #9e9e9e; background: #e0e0e0; }
        .uptodate { fill: #2e7d32; background: #c8e6c9; }
        .syncing { fill: #1565c0; background: #bbdefb; }
        .waiting { fill: #ef8f00; background: #ffe0b2; }
        .notyetsynced { fill: #90caf9; background: #e3f2fd; }
        .paused { fill: #c62828; background: #ffcdd2; }
        """
}
