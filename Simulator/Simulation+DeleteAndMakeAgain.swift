import DeviceStore
import PrivateCloud
import PrivateSync

extension Simulation {
    /// The user deletes a record and makes it again under its name before any sync, after a request of this device
    /// that created it reached the server with its answer never recorded (the process killed right after the server
    /// applied it), while another device of the account fetched the old one and deleted it. The new record is an
    /// acknowledged write: the deletion, fetched later, is of the old one and must leave it alone.
    ///
    /// The app's own engine lost it until the store's delete forgot the creation in flight (`CLIDeleteAndMakeAgainTests`):
    /// it took the new record for the one the request created, whose deletion wins. "A name used again" never met
    /// this order: it makes a name again only once its delete reached the container and no device has it pending.
    /// Met on purpose, as the account round trip is: a crash after a modify, a peer's fetch and delete, and the
    /// user's two writes, in this order, almost never come together by the draw.
    func deleteAndMakeAgain(_ device: Device) async {
        guard runningApp(device) != nil, isOn(device) else { return }
        let peers = syncingPeers(of: device).filter { isOn($0) }
        guard !peers.isEmpty else { return }
        let peer = peers[Int(random.next() % UInt64(peers.count))]
        let types = world.partition.schema.recordTypes.filter {
            world.partition.partition(of: $0.name) == .userCreated
        }
        guard !types.isEmpty else { return }
        let type = types[Int(random.next() % UInt64(types.count))]
        // What waits leaves first, so that the new record goes in the first request of the next cycle.
        await holdingInterleavings { await sync(device, force: true, why: "before a record is deleted and made again") }
        guard result.failure == nil, let app = runningApp(device) else { return }
        moment += 1
        let name: String
        do {
            let fields = RecordFactory.fields(for: type, now: device.clock.now(), random: &random)
            let record = try app.add(type.name, fields: fields)
            name = record.name
            written[name] = Written(type: type.name, partition: .userCreated, account: app.device.session.account)
            device.expected.insert(name)
            noteWrite(device, before: nil, after: record, fields: Array(record.fields.keys))
            trace("\(device.name): add \(type.name) \(name.prefix(8)) (to delete and make again)")
            mark(.write, device.name, "add \(type.name) \(name.prefix(8))")
        } catch {
            return noteFailed(device, "write", error, mark: .write)
        }
        await holdingInterleavings {
            // Its creation reaches the server; the process dies before the answer is recorded.
            relaunch(device, why: "relaunch", crashingAt: .afterModify)
            await sync(device, force: true, why: "its creation's answer is never recorded")
            // Another device fetches it, and the user there deletes it; the delete reaches the server.
            await sync(peer, force: true, why: "fetches the new record")
            guard let peerApp = runningApp(peer), let (copy, _) = try? peerApp.find(name) else { return }
            moment += 1
            do {
                try await userDelete(copy, on: peer, in: peerApp)
            } catch {
                return noteFailed(peer, "write", error, mark: .write)
            }
            await sync(peer, force: true, why: "sends its delete")
        }
        guard result.failure == nil, let app = runningApp(device), let (mine, _) = try? app.find(name) else { return }
        let inFlight = (try? app.stores.userCreated.syncSnapshot { try $0.engineState().creationsInFlight }) ?? []
        moment += 1
        do {
            try await userDelete(mine, on: device, in: app)
        } catch {
            return noteFailed(device, "write", error, mark: .write)
        }
        guard madeAgainIsOwedExactly(name, on: device) else { return }
        moment += 1
        let account = app.device.session.account
        do {
            let fields = RecordFactory.fields(for: type, now: device.clock.now(), random: &random)
            let again = try addRecord(type.name, name: name, fields: fields, in: app)
            createdAgain(again, on: device, account: account)
            if inFlight.contains(name) { reached.insert(.madeAgainOverACreationInFlight) }
            trace("\(device.name): add \(type.name) \(name.prefix(8)) again, before its delete left")
            mark(.write, device.name, "add \(type.name) \(name.prefix(8)) again, before its delete left")
        } catch {
            // Killed at the check of the chosen name, the record landed though the add threw: the oracle owes it.
            noteFailedAdd(of: name, type: type.name, on: device, error) {
                createdAgain($0, on: device, account: account)
            }
        }
    }

    /// Whether the oracle owes exactly a new record made under `name` on `device` now: no container holds the old
    /// one (the peer's delete reached it), no other device holds it or has a change of it pending (this device's own
    /// delete, unsent, is replaced by the new record's save), no archive holds it and no deletion of an account's
    /// data covers it. Otherwise the new record would merge into a copy of the old, which no rule settles.
    private func madeAgainIsOwedExactly(_ name: String, on device: Device) -> Bool {
        guard let onServer = namesInContainers(), !onServer.contains(name) else { return false }
        if zoneDeletions.values.contains(where: { $0.names.contains(name) }) { return false }
        for other in devices {
            guard let app = other.app, let archived = archivedNames(other) else { return false }
            let pending: PendingChangeRow?
            let held: Bool
            do {
                pending = try app.stores.userCreated.syncSnapshot { try $0.pendingChange(named: name) }
                held = try app.stores.userCreated.containsRecord(named: name)
            } catch {
                return false
            }
            if held || archived.held.contains(name) { return false }
            if other === device ? pending?.kind == .save : pending != nil || archived.deletes.contains(name) {
                return false
            }
        }
        return true
    }
}
