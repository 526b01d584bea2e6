import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A group of related operations, as `CKOperationGroup`: a name and an identifier, for logs.
///
/// The fake only carries it: options hold one, events hand it back, nothing else reads it.
public final class PSOperationGroup: Sendable, CustomStringConvertible {
    /// The group's unique identifier.
    public let operationGroupID: String
    private let nameStorage = Mutex<String?>(nil)

    /// Creates a group with a new identifier, as `CKOperationGroup()`.
    public init() {
        operationGroupID = UUID().uuidString
    }

    /// A name for the group, shown in logs.
    public var name: String? {
        get { nameStorage.withLock { $0 } }
        set { nameStorage.withLock { $0 = newValue } }
    }

    /// The identifier and the name.
    public var description: String { "<PSOperationGroup \(operationGroupID)\(name.map { " \($0)" } ?? "")>" }
}

/// Subscriptions, as `CKSubscription`: only the identifier type a configuration names.
public enum PSSubscription {
    /// A subscription's identifier, as `CKSubscription.ID`.
    public typealias ID = String
}
