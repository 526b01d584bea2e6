public import ContactsSample
public import PrivateSyncEngineTesting

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Apple's sample app, made ready for a ``DelegateSweep``: what a team writes in its own test target to sweep its
/// delegate (copy it, and put your app where ``contacts`` is).
///
/// ```swift
/// let report = await SweptContacts.sweep().sweep(seeds: 0..<300)
/// #expect(report.failures.isEmpty, "\(report)")
/// ```
public final class SweptContacts: SweptApp {
    /// The app's data and its sync delegate, opened from the device's folder.
    public let contacts: SyncedDatabase
    /// The clock the user's edits are dated by: the sweep's, never the system's.
    let clock: ManualClock
    /// An object that fronts the delegate, kept alive here (the engine holds its delegate weakly).
    let front: (any PSSyncEngineDelegate)?

    /// Launches the app on a device of a sweep: its data file in the device's folder, its engine over the device's
    /// database and the sweep's scheduler.
    ///
    /// - Parameters:
    ///   - device: The device's launch.
    ///   - front: The engine's delegate when an object fronts the sample's (one that passes the events on); `nil`
    ///     for the sample's own.
    public init(device: SweepDevice, front: (any PSSyncEngineDelegate)? = nil) {
        contacts = SyncedDatabase(
            database: device.database, dataURL: device.folder.appending(path: "contacts.json"),
            automaticallySync: device.automaticallySync, scheduler: device.scheduler, engineDelegate: front)
        clock = device.clock
        self.front = front
    }

    /// The engine the sample syncs with now (it makes a new one after a sign-out).
    public var syncEngine: PSSyncEngine {
        get async { await contacts.syncEngine }
    }

    /// Each contact's name, by identifier.
    ///
    /// - Returns: What the user sees.
    public func snapshot() async -> [String: String] {
        await contacts.appData.contacts.mapValues(\.name)
    }

    /// What the user sees of an account's contacts on the server: each `Contact` record's name, by record name.
    ///
    /// - Parameter records: The account's records.
    /// - Returns: The names, by identifier.
    public static func serverSnapshot(_ records: [PSRecord]) -> [String: String] {
        var names: [String: String] = [:]
        for record in records where record.recordType == Contact.recordType {
            names[record.recordID.recordName] = record.encryptedValues[Contact.nameKey] as? String ?? ""
        }
        return names
    }

    /// What the user does: add a contact (often), add several at once, rename one, delete one.
    public static let actions: [SweepAction<SweptContacts>] = [
        SweepAction("add a contact", weight: 4) { app, random in
            try await app.add(count: 1, &random)
        },
        SweepAction("import contacts", weight: 1) { app, random in
            try await app.add(count: 2 + random.int(below: 8), &random)
        },
        SweepAction("rename a contact", weight: 4) { app, random in
            let shown = await app.contacts.appData.contacts
            // Half the time the contact edited last (here, or on another device and fetched): users edit what they
            // just edited, and two devices editing one contact is what makes conflicts.
            let latest = shown.values.max { ($0.userModificationDate, $0.id) < ($1.userModificationDate, $1.id) }?.id
            let picked = random.chance(0.5) ? latest : random.element(of: shown.keys.sorted())
            guard let id = picked, var contact = shown[id] else { return [] }
            contact.name = "name-" + random.name()
            contact.userModificationDate = app.clock.now()
            await app.contacts.saveContacts([contact])
            return [SweepWrite(key: id, value: contact.name)]
        },
        SweepAction("delete a contact", weight: 2) { app, random in
            let shown = await app.contacts.appData.contacts.keys.sorted()
            guard let id = random.element(of: shown) else { return [] }
            await app.contacts.deleteContacts([id])
            return [SweepWrite(key: id, value: nil)]
        },
    ]

    /// A sweep of the sample, with ``actions`` and ``serverSnapshot(_:)``.
    ///
    /// - Parameters:
    ///   - configuration: How a run is made.
    ///   - front: Makes an object to front the sample's delegate on each launch (a test's flawed delegate), given
    ///     the sample it fronts once it exists; `nil` for the sample alone.
    /// - Returns: The sweep.
    public static func sweep(
        configuration: DelegateSweep<SweptContacts>.Configuration = .init(),
        front: (@Sendable () -> any DelegateFront)? = nil
    ) -> DelegateSweep<SweptContacts> {
        DelegateSweep(
            configuration: configuration,
            makeApp: { device in
                guard let front = front?() else { return SweptContacts(device: device) }
                let app = SweptContacts(device: device, front: front)
                front.attach(app.contacts)
                return app
            },
            actions: actions, serverSnapshot: serverSnapshot)
    }

    private func add(count: Int, _ random: inout SweepRandom) async throws -> [SweepWrite] {
        let now = clock.now()
        let added = (0..<count).map { _ in
            Contact(id: random.name(), name: "name-" + random.name(), userModificationDate: now)
        }
        await contacts.saveContacts(added)
        return added.map { SweepWrite(key: $0.id, value: $0.name) }
    }
}
