public import DeviceStore
public import PrivateCloud
public import PrivateCloudFaults
import Synchronization

/// A container that crashes the device's process at a chosen call, after the server acted on it: the moment a
/// killed app loses the response to a request that was applied.
///
/// From the crash on, the device's stores commit nothing (see `CrashSwitch`) and every call fails; relaunch the
/// app with a fresh switch to carry on, as after a real crash.
public final class CrashingContainer: InterceptingContainer {
    /// Where to crash.
    public enum Moment: String, Sendable, Hashable, CaseIterable {
        /// After the server applied a modify request, before the app hears back.
        case afterModify
        /// After a change fetch returned, before the app applies the page.
        case afterFetch
        /// Before the first call of a cycle.
        case beforeAnyCall
    }

    /// The container wrapped.
    public let base: any PrivateContainer
    private let crashSwitch: CrashSwitch
    private let moment: Moment
    private let remaining: Mutex<Int>

    /// Wraps a container.
    ///
    /// - Parameters:
    ///   - base: The container.
    ///   - crashSwitch: The device's crash switch, flipped at the crash.
    ///   - moment: Where to crash.
    ///   - after: How many matching calls to let through first.
    public init(base: any PrivateContainer, crashSwitch: CrashSwitch, at moment: Moment, after: Int = 0) {
        self.base = base
        self.crashSwitch = crashSwitch
        self.moment = moment
        self.remaining = Mutex(after)
    }

    public var identifier: ContainerIdentifier { base.identifier }

    private var dead: CloudError {
        CloudError(.networkFailure, "the process crashed (simulated)")
    }

    /// Whether this matching call is the one to crash at.
    private func isTheCrash(_ moment: Moment) -> Bool {
        guard moment == self.moment else { return false }
        return remaining.withLock { count in
            if count == 0 { return true }
            count -= 1
            return false
        }
    }

    private func guardAlive() throws(CloudError) {
        if crashSwitch.isDown { throw dead }
        if isTheCrash(.beforeAnyCall) {
            crashSwitch.crash()
            throw dead
        }
    }

    /// Every call but the account status: refused once the process is dead, and the crash made at its moment.
    public func intercept(_ call: InterceptedCall) async throws(CloudError) -> InterceptedCall.Reply {
        if case .accountStatus = call { return try await base.perform(call) }
        try guardAlive()
        let reply = try await base.perform(call)
        let moment: Moment? =
            switch call {
            case .modifyRecords: .afterModify
            case .recordZoneChanges: .afterFetch
            default: nil
            }
        if let moment, isTheCrash(moment) {
            crashSwitch.crash()
            throw dead
        }
        return reply
    }
}
