public import PrivateCloud

/// One container call a cycle made, as the request log (`SyncReport.requests`) shows it: what was asked, and what
/// became of it and of each item in it.
///
/// The log makes a cycle assertable request by request: "54 refused requests", "the second round sent nothing",
/// "the save of R met serverRecordChanged, then succeeded".
public struct ContainerRequest: Sendable, Hashable, CustomStringConvertible {
    /// The container call.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        /// `accountStatus()`.
        case accountStatus
        /// `userRecordID()`, before the cycle and before every request that reads or writes the zone.
        case userRecordID
        /// `databaseChanges(since:)`.
        case databaseChanges
        /// `saveZones(_:)`.
        case saveZones
        /// `recordZoneChanges(in:since:)`.
        case recordZoneChanges
        /// `modifyRecords(saving:deleting:)`.
        case modifyRecords
    }

    /// An item of a modify request, and what became of it.
    public struct Item: Sendable, Hashable {
        /// The record's name.
        public let recordName: String
        /// Whether the item deletes the record (else it saves it).
        public let isDelete: Bool
        /// The item's own error, or `nil` when the server accepted it.
        public var error: CloudError.Code?
    }

    /// The call.
    public let operation: Operation
    /// The zone it concerned, if any.
    public let zone: ZoneID?
    /// For a modify request: each item, in the order sent.
    public var items: [Item] = []
    /// For a modify request: the most items a request may carry at this point of the cycle (the batch size in use).
    public var batchSize: Int?
    /// For a change fetch: the records changed and deleted that came back.
    public var received: Int?
    /// The error of the whole call, or `nil` when it succeeded.
    public var error: CloudError.Code?
    /// The injected fault that struck the call or one of its items, by its CLI name.
    public var fault: String?

    /// Creates an entry.
    public init(operation: Operation, zone: ZoneID? = nil) {
        self.operation = operation
        self.zone = zone
    }

    /// One line: the operation, the zone, the items (`+` saves, `-` deletes), and the outcome.
    public var description: String {
        var text = operation.rawValue
        if let zone { text += " \(zone.zoneName)" }
        if !items.isEmpty {
            let saves = items.filter { !$0.isDelete }.count
            text += " +\(saves) -\(items.count - saves)"
            if let batchSize { text += " (batch size \(batchSize))" }
        }
        if let received { text += " received \(received)" }
        if let error {
            text += " → \(error.name)"
        } else {
            let failed = items.filter { $0.error != nil }
            if failed.isEmpty {
                text += " → ok"
            } else {
                let codes = Dictionary(grouping: failed.compactMap(\.error), by: \.name).mapValues(\.count)
                text += " → " + codes.keys.sorted().map { "\(codes[$0]!) \($0)" }.joined(separator: ", ")
            }
        }
        if let fault { text += " [fault: \(fault)]" }
        return text
    }
}
