import DeviceStore
import PrivateCloud

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Simulation {
    /// The user creates a record under a name used before, as apps that derive names from their data do: again,
    /// on the device that deleted it, once the delete has left (the fetch that brings the delete back must not
    /// remove the new record); or on two devices of one account before either syncs (their two creations merge,
    /// and every device must end with the same fields and the same two times).
    ///
    /// Until issue 23 the generator never reused a name, so no sweep met either path: the planted
    /// `delete-echo-removes-new-record` was caught by no seed, and creation times that never converged by none.
    func reuseName(_ device: Device) async {
        if random.chance(0.5) {
            await createAgainAfterDelete(device)
        } else {
            await createOnTwoDevices(device)
        }
    }

    /// Creates again, on `device`, a user-created record it deleted, under the same name and type, with new fields.
    ///
    /// Only a name no device holds any more (every device running, none holding it, none with its change pending),
    /// that no account's container holds (the delete reached it; the oracle knows a record by its name, whatever
    /// the account, so a copy left in another account's container would read as this one) and that no deletion of
    /// an account's data covers: the oracle then owes exactly the new record, a new incarnation whose field writes
    /// start afresh. A name another device or the server still holds would merge the new record into the old one's
    /// copy, which no rule of docs/engine.md settles.
    private func createAgainAfterDelete(_ device: Device) async {
        guard let app = runningApp(device), devices.allSatisfy({ $0.app != nil }), let onServer = namesInContainers()
        else { return }
        let pending = Set(((try? app.stores.userCreated.pendingChanges()) ?? []).map(\.recordName))
        let covered = zoneDeletions.values.reduce(into: Set<String>()) { $0.formUnion($1.names) }
        let candidates = device.deletedHere.sorted().filter { name in
            guard deleted.contains(name), !pending.contains(name), !covered.contains(name), !onServer.contains(name),
                written[name]?.partition == .userCreated
            else { return false }
            return devices.allSatisfy { other in
                (try? other.app?.stores.userCreated.containsRecord(named: name)) == false
            }
        }
        guard !candidates.isEmpty else { return }
        let name = candidates[Int(random.next() % UInt64(candidates.count))]
        guard let entry = written[name], let type = world.partition.schema.recordType(named: entry.type) else { return }
        let fields = RecordFactory.fields(for: type, now: device.clock.now(), random: &random)
        moment += 1
        do {
            let record = try app.add(entry.type, name: name, fields: fields)
            // A new incarnation: what was owed of the old one (its writes, its deletion, its uploads) is not owed now.
            deleted.remove(name)
            device.deletedHere.remove(name)
            fieldWrites[name] = nil
            for other in devices {
                other.expected.remove(name)
                for account in other.lastAccepted.keys { other.lastAccepted[account]?[name] = nil }
            }
            written[name] = Written(type: entry.type, partition: .userCreated, account: app.device.session.account)
            device.expected.insert(name)
            noteWrite(device, before: nil, after: record, fields: Array(record.fields.keys))
            result.namesCreatedAgain += 1
            trace("\(device.name): add \(entry.type) \(name.prefix(8)) again, after its delete left")
            mark(.write, device.name, "add \(entry.type) \(name.prefix(8)) again, after its delete")
        } catch {
            noteFailed(device, "write", error, mark: .write)
        }
    }

    /// Creates one new name on `device` and on a syncing peer of its account, each with fields of its own, before
    /// either syncs: both creations are acknowledged, so both must survive in the merge (each field by the rule),
    /// and every device must end with the same creation and modification times (invariant `healedTimesAgree`).
    private func createOnTwoDevices(_ device: Device) async {
        guard let first = runningApp(device), first.engine != nil else { return }
        let peers = syncingPeers(of: device).filter { $0.app?.engine != nil }
        guard !peers.isEmpty else { return }
        let peer = peers[Int(random.next() % UInt64(peers.count))]
        guard let second = runningApp(peer) else { return }
        let types = world.partition.schema.recordTypes.filter {
            world.partition.partition(of: $0.name) == .userCreated
        }
        guard !types.isEmpty else { return }
        let type = types[Int(random.next() % UInt64(types.count))]
        let name = "twin-\(String(random.next() % 1_000_000_000, radix: 36))"
        guard written[name] == nil else { return }
        moment += 1
        // The second creation has exactly the first one's field keys, each with a value of its own: when the later
        // creator syncs first, the earlier one's merge then takes every server field (each one later) and keeps
        // only its own, earlier creation time, the one difference that must still be sent.
        var keys: [String]?
        for (owner, app) in [(device, first), (peer, second)] {
            var fields = RecordFactory.fields(for: type, now: owner.clock.now(), random: &random)
            if let keys {
                fields = [:]
                for key in keys {
                    guard let field = type.fields.first(where: { $0.name == key }) else { continue }
                    fields[key] = RecordFactory.value(of: field.type, now: owner.clock.now(), random: &random)
                }
            }
            keys = fields.keys.sorted()
            do {
                let record = try app.add(type.name, name: name, fields: fields)
                written[name] = Written(type: type.name, partition: .userCreated, account: app.device.session.account)
                owner.expected.insert(name)
                noteWrite(owner, before: nil, after: record, fields: Array(record.fields.keys))
                trace("\(owner.name): add \(type.name) \(name) (the same name on \(device.name) and \(peer.name))")
                mark(.write, owner.name, "add \(type.name) \(name), on two devices")
            } catch {
                noteFailed(owner, "write", error, mark: .write)
                return
            }
        }
        result.namesCreatedTwice += 1
        // Half the time the later creator (by its device's clock) syncs first and the earlier one right after,
        // before anyone edits: the order in which a merge that keeps an earlier creation time once sent nothing and
        // never converged (an edit in between would hide it).
        let (earlier, later) = device.clock.now() <= peer.clock.now() ? (device, peer) : (peer, device)
        guard random.chance(0.5) else { return }
        // Each pulls to refresh up to three times, until its creation has left (a fault may fail a cycle).
        for (owner, why) in [(later, "the later creator syncs first"), (earlier, "the earlier creator syncs second")] {
            for _ in 0..<3 {
                await sync(owner, force: true, why: why)
                let pending = (try? owner.app?.stores.userCreated.pendingChanges()) ?? []
                if !pending.contains(where: { $0.recordName == name }) { break }
            }
        }
    }

    /// The names every account's container holds, or nil when one cannot be read.
    private func namesInContainers() -> Set<String>? {
        var names = Set<String>()
        for account in accounts {
            guard let records = try? world.containerRecords(account: account) else { return nil }
            names.formUnion(records.map(\.recordID.recordName))
        }
        return names
    }
}
