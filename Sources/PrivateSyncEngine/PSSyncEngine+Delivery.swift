import Foundation  // the whole Foundation: FileHandle, to report a misuse on standard error
import Synchronization

extension PSSyncEngine {
    /// The engine whose delegate the current task is inside, if any.
    @TaskLocal static var delegateCallOf: ObjectIdentifier?

    /// Runs `body` as if no engine's request or delegate call were under way on this task: what a test hook that
    /// runs another device's work in the middle of a request needs, so that the request's account and delegate
    /// marks do not leak into that device's calls (on a device, that work would run on a task of its own).
    ///
    /// - Parameter body: The work.
    /// - Returns: What it returns.
    package static func outsideEveryOperation<T: Sendable>(_ body: () async -> T) async -> T {
        await AccountSession.$requestedFor.withValue(nil) {
            await $delegateCallOf.withValue(nil) { await body() }
        }
    }

    /// Posts one event to the delegate and waits until it was handled.
    func deliver(_ event: Event) async {
        scheduler.note(.willDeliver(event), of: self)
        let handled = await callDelegate { delegate in
            await delegate.handleEvent(event, syncEngine: self)
            return true
        }
        if handled != nil { scheduler.note(.delivered(event), of: self) }
    }

    /// Calls the delegate, marking the task as inside it, so that a call back into the engine from there is caught.
    ///
    /// - Returns: What the delegate returned, or `nil` when the app released the delegate.
    func callDelegate<T: Sendable>(_ body: (any PSSyncEngineDelegate) async -> T) async -> T? {
        guard let delegate else { return nil }
        let task = Self.currentTaskHash()
        runtime.withLock { $0.deliveringTask = task }
        defer { runtime.withLock { $0.deliveringTask = nil } }
        return await Self.$delegateCallOf.withValue(ObjectIdentifier(self)) {
            await body(delegate)
        }
    }

    /// Throws ``PSSyncEngineMisuse/Code/reentrantCall`` when the current task is the one awaiting this engine's
    /// delegate: the call would wait for itself.
    ///
    /// A task the delegate starts (`Task {}`, `Task.detached`) is another task and may call the engine: its call
    /// waits for the operation in progress, as on a device.
    func checkReentrancy(_ call: String) throws(PSSyncEngineMisuse) {
        guard isInsideOwnDelegateCall else { return }
        let misuse = PSSyncEngineMisuse(
            .reentrantCall,
            "\(call) was awaited from inside the delegate's handling of this engine's event; it returns only once "
                + "that handling is done, so on a device it waits for ever. Start it in a task of its own "
                + "(Task.detached) instead")
        runtime.withLock { $0.misuses.append(misuse) }
        FileHandle.standardError.write(Data("\(misuse)\n".utf8))
        throw misuse
    }

    /// Whether the current task is the one awaiting this engine's delegate right now.
    var isInsideOwnDelegateCall: Bool {
        guard Self.delegateCallOf == ObjectIdentifier(self),
            let delivering = runtime.withLock({ $0.deliveringTask })
        else { return false }
        return delivering == Self.currentTaskHash()
    }

    /// A number that stands for the current task while it runs, or `nil` outside any task.
    static func currentTaskHash() -> Int? {
        withUnsafeCurrentTask { $0?.hashValue }
    }
}
