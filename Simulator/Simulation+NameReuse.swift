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
    /// remove the new record).
    ///
    /// Until issue 23 the generator never reused a name, so no sweep met this path: the planted
    /// `delete-echo-removes-new-record` was caught by no seed.
    func reuseName(_ device: Device) async {
        await createAgainAfterDelete(device)
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
        // Pending on any device: another device's delete of the old record still to be sent would delete the new
        // one when it goes up (a delete wins, docs/engine.md), which the oracle does not model (seed 5950 of the
        // sweep at fae632e, when only this device's changes were looked at).
        var pending = Set<String>()
        for other in devices {
            guard let changes = try? other.app?.stores.userCreated.pendingChanges() else { return }
            pending.formUnion(changes.map(\.recordName))
        }
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
            createdAgain(record, on: device, account: app.device.session.account)
            trace("\(device.name): add \(entry.type) \(name.prefix(8)) again, after its delete left")
            mark(.write, device.name, "add \(entry.type) \(name.prefix(8)) again, after its delete")
        } catch {
            let account = app.device.session.account
            noteFailed(device, "write", error, mark: .write)
            // A chosen name is checked in a transaction of the local-only store that holds the user-created
            // insert: the insert commits inside it, so a kill at the outer commit leaves the record written though
            // the add never returned (seed 2205 of the sweep at 2326e39, whose oracle then took it for a record of
            // the previous account). An add killed may or may not have landed; the relaunched store says which.
            if let relaunched = device.app, let (record, _) = try? relaunched.find(name), record.type == entry.type {
                createdAgain(record, on: device, account: account)
                trace("\(device.name): the add of \(name.prefix(8)) again was killed after its record was committed")
            }
        }
    }

    /// The oracle's bookkeeping of a record created again: a new incarnation, whose writes start afresh; what was
    /// owed of the old one (its writes, its deletion, its uploads) is not owed now.
    private func createdAgain(_ record: StoredRecord, on device: Device, account: AccountID?) {
        let name = record.name
        deleted.remove(name)
        device.deletedHere.remove(name)
        fieldWrites[name] = nil
        for other in devices {
            other.expected.remove(name)
            for account in other.lastAccepted.keys { other.lastAccepted[account]?[name] = nil }
        }
        written[name] = Written(type: record.type, partition: .userCreated, account: account)
        device.expected.insert(name)
        noteWrite(device, before: nil, after: record, fields: Array(record.fields.keys))
        result.namesCreatedAgain += 1
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
