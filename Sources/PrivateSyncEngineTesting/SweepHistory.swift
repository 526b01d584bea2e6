/// The oracle of a ``DelegateSweep``: a small model of what the users wrote, independent of any engine or delegate,
/// and the rules that may remove a write; from it, what each account's server may hold at the end.
///
/// Every write names its parent: the value the device showed for the item when the user wrote (`nil` when it showed
/// none). A write whose value is an ancestor of another write of the item was seen and overwritten by the user; the
/// writes no other write descends from are the item's *concurrent* latest writes, and a delegate may settle them any
/// way it likes (last writer wins, server wins, a delete wins), so the server must end holding one of them, never an
/// overwritten one nor nothing. The rules that forgive a write (the server may end without it):
/// - its device left the account (signed out, switched) before the write went up, or the write was made after the
///   account changed and before the app heard of it (it is the account's the app heard of last);
/// - it edits an item of another account's data than the one signed in, which an app may keep on the device while
///   no account or another is signed in (until the user chooses): it is that account's, and goes up to it if that
///   account comes back, or never;
/// - a zone of the account was deleted after it (by an app, or the user in Settings), or before it, on a device that
///   had not yet learned of the deletion (the delegate deletes what it holds when it learns);
/// - the server lost it in an encrypted-data reset and no device signed into the account held it then, or the last
///   to hold it left the account before it learned of the reset.
/// A value a device held at a reset may come back whatever came after (each holder uploads its copy again, as a new
/// record; a copy that finds the item deleted since brings it back).
/// A zone deleted by the user (`purged`) adds one more: the values the server held then may not come back, unless
/// the user turned sync on again on a device that held them (which must then upload them).
/// A save its device was not told had landed (the answer lost, or the process gone before it handled it) may land
/// again later, when the device retries it, over what others wrote since (at-least-once, as Jepsen's indeterminate
/// operations): until its device hears the server has it, its value may come back after it was overwritten.
/// A value made under a name its own device had just deleted (the name's last write, nothing shown since) is a new
/// item under an old name, not an edit: a delete of what came before it (another device's, of the value it saw) may
/// remove it only by landing on the server after it was there, as a delete by name does; else the server must end
/// with it (or what came after it). The sweep tells what each request changed on the server
/// (``serverChanged(account:before:after:)``), since the order in which deletes and saves land is the server's, not
/// the users'.
/// Values must be unique across a run (``SweepRandom/name()`` draws one): they are how a write is recognised.
package struct SweepHistory: Sendable {
    /// One write the app acknowledged.
    struct Write: Sendable {
        let index: Int
        /// The account it was made under; `nil` while the device was signed into none (it becomes the account the
        /// device's engine next reports a sign-in to, which the app uploads it to).
        var account: String?
        let device: Int
        let key: String
        /// Its value, or `nil` for a deletion.
        let value: String?
        /// What the device showed for the item when the user wrote.
        let parent: String?
        let step: Int
        /// Why the server may end without it, if a rule says so.
        var forgiven: String?
        /// Whether a deletion of its zone forgave it (deleted, purged, or made before its device learned of one): a
        /// device that holds its value when the user turns sync on again uploads it again, and the rule no longer
        /// holds.
        var forgivenByZoneDeletion = false
        /// Whether its device was told the server took it (a delete, in a `sentRecordZoneChanges`).
        var confirmed = false
        /// For a save, how many writes there were when its device first heard the server held it (its save came
        /// back saved, or a fetch brought it); `nil` until then.
        var heardUpAt: Int?
        /// When its device first heard the server held it, in the order of the history's events (``tick``).
        var heardUpTick: Int?
        /// Whether its device heard the server held it from a conflict's answer (its save came back
        /// `serverRecordChanged`, carrying it): enough for the device to stop sending it, so a status may read up to
        /// date over it, but not heard up (``heardUpAt``): an app may still send it again over later writes.
        var heardInAConflict = false
        /// For a delete, whether its device heard the item was gone from the server (a fetch brought its deletion):
        /// the app may drop its delete then, and a value landing again later is news it has not fetched.
        var heardGone = false
        /// Whether it is a save made under a name its device had just deleted: the name's last write was that
        /// device's delete, and the device showed nothing for it.
        var madeAfterItsOwnDelete = false
    }

    /// A zone deletion of an account: where it falls among the writes, and what it allows.
    struct ZoneDeletion: Sendable {
        let boundary: Int
        let step: Int
        let reason: PSDatabase.DatabaseChange.Deletion.Reason
    }

    /// What the server of an account holds at the end that it should not, and which invariant that breaks.
    package struct Verdict: Sendable {
        package let invariant: DelegateSweepFailure.Invariant
        package let message: String
    }

    private(set) var writes: [Write] = []

    /// An empty history.
    package init() {}
    private var byValue: [String: Int] = [:]
    private var deletions: [String: [ZoneDeletion]] = [:]
    /// Per account, the values the user deleted from iCloud settings (or an app deleted, for an app that waits for
    /// the user after it), with the step, when (``tick``) and the deletion's reason.
    private var purged: [String: [String: (step: Int, tick: Int, reason: PSDatabase.DatabaseChange.Deletion.Reason)]] =
        [:]
    /// Counts the events that order a save heard up against a zone deletion.
    private var tick = 0
    /// Per account, the values each device held at an encrypted-data reset: the values it is to upload again, until
    /// it leaves the account.
    private var resetHolds: [String: [Int: Set<String>]] = [:]
    /// Per account and device, how many writes there were when the device last learned of a zone deletion.
    private var learnedUpTo: [String: [Int: Int]] = [:]
    /// Per account and device, how many writes there were when the device last learned of an encrypted-data reset.
    private var resetsLearned: [String: [Int: Int]] = [:]
    /// Per account and device, how many of the account's zone deletions there had been when the device last learned
    /// of one.
    private var deletionsLearned: [String: [Int: Int]] = [:]
    /// Per account, every value a device held at a reset: each holder uploads its copy again as a new record, so a
    /// copy can come back even after a later delete (the item was gone from the server when it went up).
    private var heldAtReset: [String: Set<String>] = [:]
    /// Counts the requests whose changes to the server the history saw.
    private var serverTick = 0
    /// Per account, when (``serverTick``) the server first held each value the history saw land.
    private var landed: [String: [String: Int]] = [:]
    /// Per account and item, the values a request removed from the server, and when (``serverTick``).
    private var removedFromServer: [String: [String: [(value: String, tick: Int)]]] = [:]
    /// Whether a write made a name again after its device's delete: from then on, the sweep tells the history
    /// what every request changed on the server, not only the requests that delete.
    package private(set) var namesMadeAgain = false

    /// Records a write.
    package mutating func record(
        account: String?, device: Int, key: String, value: String?, parent: String?, step: Int, forgiven: String? = nil
    ) {
        let index = writes.count
        let previous = writes.last { $0.key == key }
        var write = Write(
            index: index, account: account, device: device, key: key, value: value, parent: parent, step: step,
            forgiven: forgiven)
        write.madeAfterItsOwnDelete =
            value != nil && parent == nil && previous.map { $0.device == device && $0.value == nil } ?? false
        if write.madeAfterItsOwnDelete { namesMadeAgain = true }
        writes.append(write)
        if let value { byValue[value] = index }
    }

    /// Notes what one request changed on an account's server: the values that landed, and those it removed.
    ///
    /// - Parameters:
    ///   - account: The account.
    ///   - before: Its items on the server just before the request.
    ///   - after: Its items just after.
    package mutating func serverChanged(account: String, before: [String: String], after: [String: String]) {
        serverTick += 1
        for (key, value) in after where before[key] != value && landed[account]?[value] == nil {
            landed[account, default: [:]][value] = serverTick
        }
        for (key, value) in before where after[key] == nil {
            removedFromServer[account, default: [:]][key, default: []].append((value, serverTick))
        }
    }

    /// The account a value was written under, as far as the history knows: `nil` for a value no write made,
    /// `.some(nil)` for one written signed into no account and not yet given to one.
    ///
    /// - Parameter value: The value.
    /// - Returns: The account.
    package func account(ofValue value: String) -> String?? {
        byValue[value].map { writes[$0].account }
    }

    /// Gives a device's writes made while signed into no account to the account it signed into.
    ///
    /// A deletion of that account's zone (by an app, or the user) after such a write forgives it as it forgives the
    /// account's own writes: the app takes what it holds for the account's data, which the deletion's rule may
    /// delete when the app learns of it.
    package mutating func attribute(device: Int, to account: String) {
        let zoneDeletions = deletions[account, default: []].filter { $0.reason != .encryptedDataReset }
        for index in writes.indices where writes[index].device == device && writes[index].account == nil {
            writes[index].account = account
            guard writes[index].forgiven == nil, let deletion = zoneDeletions.first(where: { $0.boundary > index })
            else { continue }
            writes[index].forgiven =
                "the zone was deleted (\(deletion.reason)) at step \(deletion.step), after it was written signed out"
            writes[index].forgivenByZoneDeletion = true
        }
    }

    /// Notes that a device heard the server holds a value of an item: its own save of it came back saved, or a
    /// fetch brought it. The device will not send that save again, so it may not come back once overwritten.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - key: The item.
    ///   - value: The value the server holds.
    package mutating func heardUp(device: Int, key: String, value: String) {
        guard let index = write(of: value, device: device, key: key), writes[index].heardUpAt == nil else { return }
        writes[index].heardUpAt = writes.count
        tick += 1
        writes[index].heardUpTick = tick
    }

    /// A save of a device that is still its own to send: the device's user wrote this value of the item, under the
    /// account or signed into none, and the device has not heard that the server holds it (its save came back saved,
    /// or `serverRecordChanged` carrying it, or a fetch brought it). While the device shows such a value and the
    /// server does not hold it, the device is behind: the save is still to go up.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - account: The account signed in.
    ///   - key: The item.
    ///   - value: The value the device shows.
    /// - Returns: The step the user wrote it at, or `nil` when the value is not such a save.
    package func stepOfUnsentSave(device: Int, account: String, key: String, value: String) -> Int? {
        guard let index = write(of: value, device: device, key: key) else { return nil }
        let write = writes[index]
        guard write.heardUpAt == nil, !write.heardInAConflict, (write.account ?? account) == account else { return nil }
        return write.step
    }

    /// A delete of a device that is still its own to send: the device's last write of the item is a delete of the
    /// value the server holds now, under the account or signed into none, which the server never confirmed, no rule
    /// forgave, and the device never heard had happened (a fetched deletion of the item); with no deletion of the
    /// account's zone after it, and no reset the device learned of after it (a reset's re-uploads may bring the
    /// value back, and an app may drop its deletes when it learns of one). While the device shows nothing for the
    /// item, it is behind: the delete is still to go up.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - account: The account signed in.
    ///   - key: The item, which the device does not show.
    ///   - serverValue: The value the account's server holds for it.
    /// - Returns: The step the user deleted it at, or `nil` when there is no such delete.
    package func stepOfUnsentDelete(device: Int, account: String, key: String, serverValue: String) -> Int? {
        guard let index = lastWrite(device: device, key: key) else { return nil }
        let write = writes[index]
        guard write.value == nil, write.parent == serverValue, !write.confirmed, !write.heardGone,
            write.forgiven == nil, (write.account ?? account) == account,
            !(deletions[account] ?? []).contains(where: { $0.boundary > index }),
            (resetsLearned[account]?[device] ?? 0) <= index
        else { return nil }
        return write.step
    }

    /// Notes that a device learned of an encrypted-data reset of an account's zone (its database's changes listed
    /// the zone deleted for that reason). It forgives nothing (``deviceLearnedOfDeletion(_:account:step:)`` is for
    /// the other reasons): only the status's check reads it (``stepOfUnsentDelete(device:account:key:serverValue:)``).
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - account: The account.
    package mutating func deviceLearnedOfReset(_ device: Int, account: String) {
        resetsLearned[account, default: [:]][device] = writes.count
    }

    /// The index of a device's write of an item that gave it a value, if the value is one a write gave.
    private func write(of value: String, device: Int, key: String) -> Int? {
        guard let index = byValue[value], writes[index].device == device, writes[index].key == key else { return nil }
        return index
    }

    /// The index of a device's last write of an item, if any.
    private func lastWrite(device: Int, key: String) -> Int? {
        writes.lastIndex { $0.device == device && $0.key == key }
    }

    /// Notes that a device heard an item was gone from the server (a fetch brought its deletion): its own last
    /// delete of the item, if that is its last write of it, is no longer one it must send. Only the status's check
    /// reads this (``stepOfUnsentDelete(device:account:key:serverValue:)``).
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - key: The item.
    package mutating func heardGone(device: Int, key: String) {
        guard let index = lastWrite(device: device, key: key), writes[index].value == nil else { return }
        writes[index].heardGone = true
    }

    /// Notes that a device's save came back `serverRecordChanged` carrying a value of the device's own: the server
    /// holds it. Only the status's check reads this (``stepOfUnsentSave(device:account:key:value:)``): an app may
    /// take the answer as its save's, or send the value again over what lands next, so the rules of what the
    /// server may end with do not change.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - key: The item.
    ///   - value: The value the server's record holds.
    package mutating func heardInAConflict(device: Int, key: String, value: String) {
        guard let index = write(of: value, device: device, key: key) else { return }
        writes[index].heardInAConflict = true
    }

    /// Notes that the server confirmed a device's delete of an item: a delete is up only when confirmed (an item
    /// missing from the server may be missing for another reason, a zone reset, and come back).
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - key: The item.
    ///   - foundNothing: The code the server answered when it had nothing to delete, or `nil` when it deleted the
    ///     item: `unknownItem` (the item was already gone: a zone reset, another device's delete), `zoneNotFound` or
    ///     `userDeletedZone` (its whole zone was). The delete removed nothing then, and a device that held the item
    ///     may bring it back.
    package mutating func confirmDelete(device: Int, key: String, foundNothing: String?) {
        if let index = writes.lastIndex(where: { $0.device == device && $0.key == key && $0.value == nil }) {
            writes[index].confirmed = true
            if let foundNothing, writes[index].forgiven == nil {
                writes[index].forgiven = "the server had nothing to delete (\(foundNothing))"
            }
        }
    }

    /// Forgives the writes of a device in an account that had not gone up when it left the account: a save whose
    /// value the server holds no descendant of, a delete the server did not confirm.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - account: The account it left.
    ///   - server: The account's items on the server when it left.
    ///   - step: The step.
    package mutating func deviceLeft(_ device: Int, account: String, server: [String: String], step: Int) {
        for index in writes.indices
        where writes[index].device == device && writes[index].account == account && writes[index].forgiven == nil {
            let write = writes[index]
            let isUp: Bool =
                if let value = write.value {
                    server[write.key].map { descends($0, from: value) } ?? false
                } else {
                    write.confirmed
                }
            if !isUp { writes[index].forgiven = "its device left \(account) at step \(step) before it went up" }
        }
        // What only this device held through a reset, and had not uploaded again, leaves with it.
        guard let values = resetHolds[account]?.removeValue(forKey: device) else { return }
        let stillHeld = resetHolds[account, default: [:]].values.reduce(into: Set<String>()) { $0.formUnion($1) }
        for value in values where !stillHeld.contains(value) {
            guard let index = byValue[value], writes[index].forgiven == nil else { continue }
            if let held = server[writes[index].key], descends(held, from: value) { continue }
            writes[index].forgiven =
                "an encrypted-data reset lost it; device-\(device), the last to hold it, left \(account) at step "
                + "\(step) before it uploaded it again"
        }
    }

    /// Records a zone deletion of an account.
    ///
    /// - Parameters:
    ///   - account: The account.
    ///   - reason: Why it was deleted.
    ///   - step: The step.
    ///   - server: The account's items on the server just before.
    ///   - heldByDevices: For an encrypted-data reset, the values each device signed into the account showed (a
    ///     device that can learn of it: one whose engine holds a database change token).
    ///   - shown: For an encrypted-data reset, the values any device signed into the account showed, whether it can
    ///     learn of the reset or not: the reset lost none of them that the server did not hold (a device that never
    ///     fetched, opened offline, still holds what it wrote, and uploads it). `nil`: those of `heldByDevices`.
    ///   - staysDeleted: Whether what the server held stays deleted unless the user answers: a purge's does (the
    ///     default, `nil`, is whether `reason` is `purged`), and an app's deletion's does for an app that waits for
    ///     the user after it (``SweptApp/waitsForTheUserAfterAnAppsDeletion``).
    package mutating func zoneDeleted(
        account: String, reason: PSDatabase.DatabaseChange.Deletion.Reason, step: Int, server: [String: String],
        heldByDevices: [Int: Set<String>], shown: Set<String>? = nil, staysDeleted: Bool? = nil
    ) {
        let staysDeleted = staysDeleted ?? (reason == .purged)
        let held = heldByDevices.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        // What only a device that cannot learn of the reset shows, and the server did not hold, the reset did not
        // lose; what the server held it did, and that device never uploads it again.
        let kept = held.union((shown ?? []).subtracting(server.values))
        if reason == .encryptedDataReset {
            for (device, values) in heldByDevices {
                resetHolds[account, default: [:]][device, default: []].formUnion(values)
            }
            heldAtReset[account, default: []].formUnion(held)
        }
        deletions[account, default: []].append(ZoneDeletion(boundary: writes.count, step: step, reason: reason))
        for index in writes.indices where writes[index].account == account && writes[index].forgiven == nil {
            switch reason {
            case .deleted, .purged:
                writes[index].forgiven = "the zone was deleted (\(reason)) at step \(step)"
                writes[index].forgivenByZoneDeletion = true
            case .encryptedDataReset:
                if let value = writes[index].value, kept.contains(value) { continue }
                writes[index].forgiven = "an encrypted-data reset at step \(step) lost it, and no device held it"
            }
        }
        if staysDeleted {
            tick += 1
            for value in server.values { purged[account, default: [:]][value] = (step, tick, reason) }
        }
    }

    /// A device learned of a zone deletion of its account (deleted, or purged): its writes since the first such
    /// deletion it had not learned of, made before it knew, are forgiven (the delegate deletes what it holds).
    package mutating func deviceLearnedOfDeletion(_ device: Int, account: String, step: Int) {
        let known = learnedUpTo[account]?[device] ?? 0
        learnedUpTo[account, default: [:]][device] = writes.count
        deletionsLearned[account, default: [:]][device] = deletions[account]?.count ?? 0
        guard
            let first = deletions[account]?.first(where: {
                $0.reason != .encryptedDataReset && $0.boundary >= known
            })
        else { return }
        for index in writes.indices.dropFirst(first.boundary)
        where writes[index].device == device && writes[index].account == account && writes[index].forgiven == nil {
            writes[index].forgiven = "made before its device learned, at step \(step), of the zone's deletion"
            writes[index].forgivenByZoneDeletion = true
        }
    }

    /// The user turned sync on again on a device paused for a deletion of the zone, and the app took it: it uploads
    /// every value it holds again. Each may be on the server again whatever came after (as after an
    /// encrypted-data reset), even one the user had deleted in Settings, which the user's word brings back; and a
    /// write of the account that a deletion of the zone forgave, whose value the device holds, stands again: it is
    /// to be on the server, unless a later rule forgives it (the device leaves the account before it uploads it
    /// again, another deletion). Not while a deletion the device has not learned of is pending: learning of it, the
    /// device may delete what it holds.
    ///
    /// - Parameters:
    ///   - device: The device.
    ///   - account: The account signed in.
    ///   - values: The values the device showed when the user turned sync on again.
    ///   - step: The step.
    package mutating func deviceReuploads(_ device: Int, account: String, holding values: Set<String>, step: Int) {
        resetHolds[account, default: [:]][device, default: []].formUnion(values)
        heldAtReset[account, default: []].formUnion(values)
        // A deletion of the zone the device has not learned of yet is one its consent does not cover: when it learns,
        // it may delete what it holds (a zone an app deleted) or pause again. Its writes stay forgiven then.
        let known = deletionsLearned[account]?[device] ?? 0
        let unlearned = deletions[account, default: []].dropFirst(known).contains { $0.reason != .encryptedDataReset }
        for value in values {
            purged[account]?.removeValue(forKey: value)
            guard !unlearned, let index = byValue[value], writes[index].account == account,
                writes[index].forgivenByZoneDeletion
            else { continue }
            writes[index].forgiven = nil
            writes[index].forgivenByZoneDeletion = false
        }
    }

    /// Whether `value` is `ancestor` or was written over it, through the writes' parents.
    package func descends(_ value: String, from ancestor: String) -> Bool {
        var current: String? = value
        var hops = 0
        while let known = current, hops <= writes.count {
            if known == ancestor { return true }
            current = byValue[known].flatMap { writes[$0].parent }
            hops += 1
        }
        return false
    }

    /// What is wrong with an account's items on the server at the end.
    ///
    /// - Parameters:
    ///   - account: The account.
    ///   - server: Its items on the server.
    ///   - refused: Items the server refused for good (not judged).
    /// - Returns: The first wrong item's verdict, or `nil`.
    package func verdict(account: String, server: [String: String], refused: Set<String>) -> Verdict? {
        var byKey: [String: [Write]] = [:]
        for write in writes where write.account == account { byKey[write.key, default: []].append(write) }
        let keys = Set(byKey.keys).union(server.keys).subtracting(refused).sorted()
        for key in keys {
            let held = server[key]
            // A breach of privacy first: a value no one wrote under this account is that, whatever else it is.
            if let held, let origin = byValue[held].map({ writes[$0] }), origin.account != account {
                return Verdict(
                    invariant: .privacy,
                    message: "\(account)'s server holds \(key) = \(held), written on device-\(origin.device) under "
                        + "\(origin.account ?? "no account") at step \(origin.step)")
            }
            let itemWrites = byKey[key] ?? []
            if itemWrites.isEmpty, let held {
                return Verdict(
                    invariant: .privacy,
                    message: "\(account)'s server holds \(key) = \(held), which no device wrote under \(account)")
            }
            // A save its device had not heard had landed when the user deleted the zone may land again at any time
            // (at-least-once): after the purge too, sent again by a device that could not learn of it (a fetch from
            // no change token reports no deletion), into a zone its save creates again.
            if let held, let (step, purgedAt, reason) = purged[account]?[held],
                byValue[held].map({ (writes[$0].heardUpTick ?? Int.max) < purgedAt }) ?? true
            {
                let deletion =
                    reason == .purged
                    ? "the user deleted it from iCloud settings"
                    : "an app deleted its zone, with no word of the user since"
                return Verdict(
                    invariant: .purgedStaysDeleted,
                    message: "\(account)'s \(key) = \(held) came back after \(deletion) at step \(step)")
            }
            var allowed = allowedValues(
                itemWrites, removed: removedFromServer[account]?[key] ?? [], landed: landed[account] ?? [:])
            for write in itemWrites where write.value.map({ heldAtReset[account]?.contains($0) ?? false }) ?? false {
                allowed.insert(write.value)
            }
            guard !allowed.contains(held) else { continue }
            let expected = allowed.map { $0 ?? "nothing" }.sorted().joined(separator: " or ")
            let latest = itemWrites.filter { $0.forgiven == nil && allowed.contains($0.value) }
                .map { "device-\($0.device) at step \($0.step)" }.joined(separator: ", ")
            return Verdict(
                invariant: .noLostWrites,
                message: "\(account)'s \(key) ends as \(held ?? "nothing") on the server, but the writes that stand "
                    + "make it \(expected) (\(latest))")
        }
        return nil
    }

    /// Whether a request removed an item from the server in a way that may take a value made again under its name:
    /// after that value landed (a delete by name takes whatever the name holds), or a removal of that value or one
    /// written over it, or of a value written after it (a concurrent edit, which a device may merge over the new
    /// value before it lands: the last writer wins).
    ///
    /// - Parameters:
    ///   - write: The value made again.
    ///   - removed: The item's values requests removed from the server, and when.
    ///   - landed: When the server first held each value.
    /// - Returns: Whether such a removal happened.
    private func removedAfter(_ write: Write, removed: [(value: String, tick: Int)], landed: [String: Int]) -> Bool {
        guard let value = write.value else { return true }
        return removed.contains { removal in
            removal.tick > landed[value] ?? Int.max || descends(removal.value, from: value)
                || (byValue[removal.value] ?? -1) > write.index
        }
    }

    /// The values an item may end with: its concurrent latest writes that no rule forgave, any forgiven write's, and
    /// nothing when no write stands; not nothing while a value made again under the name after its device's delete
    /// stands, unless a request removed the item from the server after that value had landed (or removed that value,
    /// or one written over it).
    ///
    /// - Parameters:
    ///   - itemWrites: The item's writes.
    ///   - removed: The item's values requests removed from the server, and when.
    ///   - landed: When the server first held each value.
    /// - Returns: The values.
    private func allowedValues(
        _ itemWrites: [Write], removed: [(value: String, tick: Int)], landed: [String: Int]
    ) -> Set<String?> {
        let standing = itemWrites.filter { $0.forgiven == nil }
        var overwritten: Set<String> = []
        for write in standing {
            var parent = write.parent
            var hops = 0
            while let value = parent, hops <= writes.count, !overwritten.contains(value) {
                overwritten.insert(value)
                parent = byValue[value].flatMap { writes[$0].parent }
                hops += 1
            }
        }
        var allowed = Set(standing.filter { $0.value.map { !overwritten.contains($0) } ?? true }.map(\.value))
        for write in itemWrites where write.forgiven != nil { allowed.insert(write.value) }
        for write in standing {
            // A save another device overwrote before its own device heard it was up may be sent again, and land
            // over what came after. (Its own device overwriting it sends its newer value instead.)
            guard let value = write.value, overwritten.contains(value),
                let over = itemWrites.first(where: { $0.parent == value && $0.device != write.device })
            else { continue }
            if (write.heardUpAt ?? Int.max) > over.index { allowed.insert(value) }
        }
        if standing.isEmpty { allowed.insert(nil) }
        // A delete of what came before a value made again names what its device saw, not the new item: it takes the
        // new one only by landing after it (a delete by name takes whatever the name holds), which the server's
        // removals tell.
        // One a user wrote over since (even by a write a rule forgave: a delete that found nothing) is no longer
        // owed as itself.
        let writtenOver = Set(itemWrites.compactMap(\.parent))
        let madeAgain = standing.filter { write in
            guard write.madeAfterItsOwnDelete, let value = write.value else { return false }
            return !overwritten.contains(value) && !writtenOver.contains(value)
        }
        if !madeAgain.isEmpty, !madeAgain.allSatisfy({ removedAfter($0, removed: removed, landed: landed) }) {
            allowed.remove(nil)
        }
        return allowed
    }
}
