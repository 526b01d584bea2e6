/// A use of the engine that CloudKit's would not survive: reported loudly here instead of hanging or corrupting.
public struct PSSyncEngineMisuse: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of misuse.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// ``PSSyncEngine/fetchChanges(_:)`` or ``PSSyncEngine/sendChanges(_:)`` awaited from inside the
        /// delegate's handling of the same engine's event: it would wait for itself (on a device, for ever).
        case reentrantCall
        /// The configuration's state serialization belongs to the other engine: the real CKSyncEngine's given to
        /// the fake one, or the fake one's given to the bridge. Neither can use the other's.
        case foreignStateSerialization
        /// The fake engine's configuration names a database that fronts the real CloudKit.
        case cloudKitDatabase
        /// The delegate was released: the engine holds it weakly, as CloudKit's does, and the app must keep it. On a
        /// device the engine would then drop every event in silence; this one refuses to run.
        case delegateReleased
    }

    /// The kind.
    public let code: Code
    /// What happened, and what to do instead.
    public let message: String

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - code: The kind.
    ///   - message: What happened, and what to do instead.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The code and the message.
    public var description: String { "PSSyncEngine misuse (\(code.rawValue)): \(message)" }
}
