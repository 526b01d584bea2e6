import DeviceStore
import PrivateCloud
import PrivateSync
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Simulation {
    // MARK: After the heal, across devices

    /// A device that syncs after the heal: its app, and the account its data is bound to.
    private struct Healed {
        let device: Device
        let app: LaunchedApp
        let account: AccountID
    }

    /// Invariants 9 and 12, over every device that syncs after the heal: nothing pending; every record's times agree
    /// across devices; every field holds the value the merge rule picks from the writes that happened.
    func checkHealedTogether() {
        var healed: [Healed] = []
        for device in devices {
            guard let app = device.app, let status = try? status(of: app), status.isOn, let bound = boundUser(app),
                let pending = pendingChangeCount(app),
                let account = accounts.first(where: { $0.userRecordID == bound })
            else { continue }
            check(
                .healedTimesAgree, pending == 0, "\(device.name): \(pending) change(s) still pending after the heal")
            healed.append(Healed(device: device, app: app, account: account))
        }
        for account in accounts where result.failure == nil {
            let group = healed.filter { $0.account == account }
            guard !group.isEmpty else { continue }
            var held: [String: [(device: Device, record: StoredRecord)]] = [:]
            for member in group {
                let records = (try? member.app.stores.userCreated.records()) ?? []
                for record in records where record.origin == nil || record.origin == account.userRecordID {
                    held[record.name, default: []].append((member.device, record))
                }
            }
            for name in held.keys.sorted() where result.failure == nil {
                let copies = held[name]!
                // A copy the server refused for good stays as its device wrote it, on a delegate's build
                // (``noteRefused``): it is held to nothing here, and its device's writes of it are not owed.
                let kept = copies.filter { !holdsAsRefused($0.device, $0.record) }
                guard let first = kept.first else { continue }
                for other in kept.dropFirst() {
                    check(
                        .healedTimesAgree,
                        other.record.createdAt == first.record.createdAt
                            && other.record.modifiedAt == first.record.modifiedAt,
                        "\(first.record.type) \(name): created \(first.record.createdAt.timeIntervalSinceReferenceDate), modified \(first.record.modifiedAt.timeIntervalSinceReferenceDate) on \(first.device.name), "
                            + "but \(other.record.createdAt.timeIntervalSinceReferenceDate), \(other.record.modifiedAt.timeIntervalSinceReferenceDate) on \(other.device.name)"
                    )
                }
                if !deleted.contains(name), !mergesTooLarge.contains(name) {
                    let refusing = Set(copies.filter { holdsAsRefused($0.device, $0.record) }.map(\.device.name))
                    let uploaders = group.map(\.device.name).filter { !refusing.contains($0) }
                    checkMerge(first.record, on: first.device, uploaders: Set(uploaders))
                }
            }
        }
    }

    /// Invariant 12 on one healed record: each field's value and version must be one the writes produced, and no
    /// write that must have reached the server (made on a device that syncs now, in its current installation, and
    /// still holding the record) may be beaten by an older one, or be superseded without its successor.
    ///
    /// The rule (docs/engine.md): among writes that did not see each other, each field takes the value of the
    /// greatest version (time, then device); a write supersedes the version its device held when it was made.
    private func checkMerge(_ record: StoredRecord, on device: Device, uploaders: Set<String>) {
        guard let writes = fieldWrites[record.name] else { return }
        for field in writes.keys.sorted() where result.failure == nil {
            let all = writes[field]!
            let mustCount = all.filter { write in
                uploaders.contains(write.device)
                    && devices.first(where: { $0.name == write.device })?.generation == write.generation
            }
            guard !mustCount.isEmpty else { continue }
            let final = record.fieldVersions[field]
            let value = record.fields[field]
            guard let final else {
                fail(
                    .mergeRule,
                    "\(record.type) \(record.name) on \(device.name) lost field \(field) (written \(all.count) time(s))"
                )
                return
            }
            // The final version is one that was written, with the value written with it.
            let producing = all.filter { $0.version == final }
            if !producing.isEmpty {
                check(
                    .mergeRule, producing.contains { $0.value == value },
                    "\(record.type) \(record.name) on \(device.name): \(field) has version \(final) but not the value written with it"
                )
            }
            // No counted write beats it by the rule, unless the final write saw it.
            let superseded = Set(all.compactMap(\.predecessor))
            for write in mustCount where write.version > final && !superseded.contains(write.version) {
                fail(
                    .mergeRule,
                    "\(record.type) \(record.name) on \(device.name): \(field) holds the write \(final), but \(write.device)'s write \(write.version) is later by the rule and was not seen by it"
                )
                return
            }
            // A counted write that lost by the rule lost in a conflict some device recorded: no edit vanishes
            // silently.
            if !conflicted.contains(record.name),
                let lost = mustCount.first(where: { $0.version < final && !superseded.contains($0.version) })
            {
                fail(
                    .mergeRule,
                    "\(record.type) \(record.name) on \(device.name): \(lost.device)'s write of \(field) (\(lost.version)) vanished without any device recording a conflict"
                )
                return
            }
            // The final write is not one a counted write superseded.
            if let successor = mustCount.first(where: { $0.predecessor == final && $0.version != final }) {
                fail(
                    .mergeRule,
                    "\(record.type) \(record.name) on \(device.name): \(field) holds the write \(final), which \(successor.device) overwrote with \(successor.version) after seeing it"
                )
            }
        }
    }
}
