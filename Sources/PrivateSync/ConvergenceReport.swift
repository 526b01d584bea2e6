public import DeviceStore
public import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How one device's user-created records compare with its account's container: what `audit --convergence` shows.
///
/// A difference that a pending change explains (a save or delete not yet sent) is expected; any other means the
/// device and the container disagree for good, which a converged world never does.
public struct ConvergenceReport: Sendable, Hashable {
    /// One record on which the device and the container disagree.
    public struct Difference: Sendable, Hashable, CustomStringConvertible {
        /// How they disagree.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// The container has the record; the device does not.
            case missing
            /// The device has the record; the container does not.
            case extra
            /// Both have it, with other field values.
            case differentFields
            /// Both have it, with the same fields but other creation or modification times.
            case differentTimes
        }

        /// The record.
        public let recordName: String
        /// How they disagree.
        public let kind: Kind
        /// Whether a change waiting on the device accounts for it.
        public let explainedByPendingChange: Bool
        /// What differs, in words.
        public let detail: String

        public var description: String {
            "\(kind.rawValue) \(recordName): \(detail)" + (explainedByPendingChange ? " (a change is pending)" : "")
        }
    }

    /// The device.
    public let device: String
    /// The account whose container was compared, if the device has one.
    public let account: AccountID?
    /// Records compared on the device.
    public var recordsOnDevice = 0
    /// Records compared in the container's zone.
    public var recordsInContainer = 0
    /// Changes waiting on the device.
    public var pendingChanges = 0
    /// Every difference, by record name.
    public var differences: [Difference] = []

    /// Creates an empty report.
    public init(device: String, account: AccountID?) {
        self.device = device
        self.account = account
    }

    /// Whether every difference is explained by a pending change.
    public var isConverged: Bool { differences.allSatisfy(\.explainedByPendingChange) }
}

extension LaunchedApp {
    /// Compares this device's user-created records with `containerRecords` (its account's container): field values,
    /// `createdAt` and `modifiedAt`, record by record.
    ///
    /// Only records that may sync to `user` are compared (those written under it or under no account); records the
    /// device holds for another account are not this container's business.
    ///
    /// - Parameters:
    ///   - containerRecords: Every record of the account's container.
    ///   - user: The container's user record.
    ///   - account: The account, for the report.
    /// - Returns: The report.
    /// - Throws: `StoreError` when the store cannot be read.
    public func convergence(
        with containerRecords: [Record], of user: UserRecordID, account: AccountID?
    ) throws(StoreError) -> ConvergenceReport {
        var report = ConvergenceReport(device: device.name, account: account)
        let zone = engine?.zoneID ?? ZoneID(uncheckedName: SyncEngine.defaultZoneName)
        let local = try stores.userCreated.records().filter { $0.origin == nil || $0.origin == user }
        let pending = Set(try stores.userCreated.pendingChanges().map(\.recordName))
        let cloud = containerRecords.filter {
            $0.recordID.zoneID == zone && partition.partition(of: $0.recordType) == .userCreated
        }
        report.recordsOnDevice = local.count
        report.recordsInContainer = cloud.count
        report.pendingChanges = pending.count
        let localByName = Dictionary(uniqueKeysWithValues: local.map { ($0.name, $0) })
        var names = Set(localByName.keys)
        for record in cloud {
            let name = record.recordID.recordName
            names.remove(name)
            guard let mine = localByName[name] else {
                report.differences.append(
                    .init(
                        recordName: name, kind: .missing, explainedByPendingChange: pending.contains(name),
                        detail: "the container has a \(record.recordType) the device does not"))
                continue
            }
            let theirs = RecordMapping.storedRecord(from: record, origin: user, existing: nil)
            if theirs.fields != mine.fields {
                let keys = Set(theirs.fields.keys).union(mine.fields.keys).filter {
                    theirs.fields[$0] != mine.fields[$0]
                }
                report.differences.append(
                    .init(
                        recordName: name, kind: .differentFields, explainedByPendingChange: pending.contains(name),
                        detail: "fields differ: \(keys.sorted().joined(separator: ", "))"))
            } else if theirs.createdAt != mine.createdAt || theirs.modifiedAt != mine.modifiedAt {
                report.differences.append(
                    .init(
                        recordName: name, kind: .differentTimes, explainedByPendingChange: pending.contains(name),
                        detail: Self.timesDetail(mine: mine, theirs: theirs)))
            }
        }
        for name in names.sorted() {
            report.differences.append(
                .init(
                    recordName: name, kind: .extra, explainedByPendingChange: pending.contains(name),
                    detail: "the device has a \(localByName[name]!.type) the container does not"))
        }
        report.differences.sort { ($0.recordName, $0.kind.rawValue) < ($1.recordName, $1.kind.rawValue) }
        return report
    }

    /// Which of two copies' times differ, each to the microsecond with how far apart (a difference under a second
    /// once printed as two identical times).
    static func timesDetail(mine: StoredRecord, theirs: StoredRecord) -> String {
        func time(_ date: Date) -> String {
            let seconds = date.timeIntervalSinceReferenceDate
            let micros = Int64(((seconds - seconds.rounded(.down)) * 1_000_000).rounded(.down))
            let fraction = String(micros)
            return "\(SyncStatus.calendarDate(date)) \(SyncStatus.clockTime(date).dropLast(4))."
                + String(repeating: "0", count: 6 - fraction.count) + fraction + " UTC"
        }
        var parts: [String] = []
        for (what, here, there) in [
            ("created", mine.createdAt, theirs.createdAt), ("modified", mine.modifiedAt, theirs.modifiedAt),
        ] where here != there {
            let apart = abs(here.timeIntervalSince(there))
            parts.append("\(what) \(time(here)) here, \(time(there)) there (\(apart) s apart)")
        }
        return parts.joined(separator: "; ")
    }
}
