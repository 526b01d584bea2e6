/// Why a cycle stopped before its end although nothing failed: the user, or another process, changed what the
/// cycle may do while it ran.
public enum CycleStopReason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The user turned sync off on this device (in this process or another) while the cycle ran: nothing more
    /// leaves the device.
    case syncTurnedOff = "sync-turned-off"
    /// The store started afresh for another account while the cycle ran: what the cycle fetched or meant to send
    /// belongs to the store's previous life, and none of it may be applied.
    case storeStartedAfresh = "store-started-afresh"
    /// Another cycle of this device (another instance of the app, in this process or another) applied changes of the
    /// zone while this one fetched them: the page this cycle holds was fetched from a token that is no longer the
    /// store's, and applying it would undo or repeat the other's work.
    case overtakenByAnotherCycle = "overtaken-by-another-cycle"

    public var description: String {
        switch self {
        case .syncTurnedOff: "sync was turned off on this device while the cycle ran"
        case .storeStartedAfresh: "the store started afresh for another account while the cycle ran"
        case .overtakenByAnotherCycle: "another sync of this device applied the same changes first"
        }
    }
}
