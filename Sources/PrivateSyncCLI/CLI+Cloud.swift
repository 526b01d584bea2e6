import ArgumentParsing
import DeviceStore
import PrivateCloud
import PrivateSyncFileSystem
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension CLI {
    /// The account's database, as another client sees it, from `--account`.
    private func accountCloud() throws -> (World, AccountCloud) {
        let world = try world()
        guard let account = try account(command.option("account")) else {
            throw CLIError(.usage, "--account is required")
        }
        return (world, world.cloud(account: account))
    }

    /// Whether the account's database exists: with the file backend, an account nothing was ever written to has no
    /// file, and only `put` may create one, so that a command refused changes nothing.
    private func hasDatabase(_ world: World, _ cloud: AccountCloud) -> Bool {
        world.memoryCloud != nil || FileSystem.exists(world.containerPath(account: cloud.account))
    }

    /// Refuses (66) a command that needs the account's database when it has none.
    private func requireDatabase(_ world: World, _ cloud: AccountCloud, for what: String) throws(CLIError) {
        guard hasDatabase(world, cloud) else {
            throw CLIError(
                .noInput, "\(what): account \(cloud.account) has no container database (nothing was ever written to it)"
            )
        }
    }

    /// The zone named by `--zone`, checked as CloudKit checks zone names; `nil` for the engine's zone.
    private func zoneOption() throws(CLIError) -> ZoneID? {
        try command.option("zone").map { text throws(CLIError) in try zoneID(text) }
    }

    private func zoneID(_ text: String) throws(CLIError) -> ZoneID {
        do {
            return try ZoneID(text)
        } catch {
            throw CLIError(.dataError, "invalid zone name: \(error.message)")
        }
    }

    /// Runs a container call, reporting its CloudKit error with the exit code of what went wrong.
    private func cloudCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CloudError where error.storageError == nil {
            let shown = "\(error.message) (\(error.code.name), \(error.code.rawValue))"
            switch error.code {
            case .unknownItem, .zoneNotFound, .userDeletedZone: throw CLIError(.noInput, shown)
            case .invalidArguments, .serverRecordChanged, .limitExceeded, .quotaExceeded:
                throw CLIError(.dataError, shown)
            default: throw CLIError(.internalError, shown)
            }
        }
    }

    func cloudRecordPut() async throws -> ExitCode {
        let (world, cloud) = try accountCloud()
        let type = command.option("type") ?? ""
        if let problem = CloudKitNames.problem(withIdentifier: type, kind: "record type") {
            throw CLIError(.dataError, "invalid record type: \(problem)")
        }
        let name = try command.option("name").map { text throws(CLIError) in try recordName(text) }
        let zone = try zoneOption()
        let fields = try FieldParsing.parseForContainer(
            command.options["field"] ?? [], declared: world.partition.schema.recordType(named: type), typeName: type,
            now: world.options.clock.now())
        let record = try await cloudCall { try await cloud.put(type: type, name: name, zone: zone, fields: fields) }
        if json {
            Terminal.json(CloudRecordJSON(record))
        } else {
            Terminal.line(record.recordID.recordName)
        }
        return .success
    }

    func cloudRecordEdit() async throws -> ExitCode {
        let (world, cloud) = try accountCloud()
        let name = try recordName(command.arguments[0])
        let zone = try zoneOption()
        let stale = command.flag("stale")
        try requireDatabase(world, cloud, for: "no record named \(name)")
        // The record's type decides how declared fields are read, so it is fetched first (reading changes nothing).
        let existing = try await cloudCall {
            try await cloud.container.record(
                for: RecordID(uncheckedName: name, zoneID: zone ?? AccountCloud.defaultZone))
        }
        let fields = try FieldParsing.parseForContainer(
            command.options["field"] ?? [], declared: world.partition.schema.recordType(named: existing.recordType),
            typeName: existing.recordType, now: world.options.clock.now())
        guard !fields.isEmpty || stale else {
            throw CLIError(.usage, "nothing to change: give --field KEY=VALUE (or --stale to save an outdated copy)")
        }
        let outcome = try await cloudCall { try await cloud.edit(name, zone: zone, fields: fields, stale: stale) }
        if json {
            struct EditJSON: Encodable {
                let record: CloudRecordJSON
                let conflict: ConflictJSON?
            }
            struct ConflictJSON: Encodable {
                let code: Int
                let name: String
                let serverChangeTag: String?
            }
            Terminal.json(
                EditJSON(
                    record: CloudRecordJSON(outcome.record),
                    conflict: outcome.conflict.map {
                        ConflictJSON(
                            code: $0.code.rawValue, name: $0.code.name,
                            serverChangeTag: $0.serverRecord?.recordChangeTag)
                    }))
            return .success
        }
        if let conflict = outcome.conflict {
            Terminal.line(
                "\(name): the stale save met \(conflict.code.name) (\(conflict.code.rawValue)): the server held change tag "
                    + "\(conflict.serverRecord?.recordChangeTag ?? "?"); saved over it with allKeys")
        }
        Terminal.line(
            "Edited \(outcome.record.recordType) \(name) in \(outcome.record.recordID.zoneID.zoneName) of "
                + "\(cloud.account) (change tag \(outcome.record.recordChangeTag ?? "?"))")
        return .success
    }

    func cloudRecordDelete() async throws -> ExitCode {
        let (world, cloud) = try accountCloud()
        let name = try recordName(command.arguments[0])
        let zone = try zoneOption()
        try requireDatabase(world, cloud, for: "no record named \(name)")
        try await cloudCall { try await cloud.delete(name, zone: zone) }
        Terminal.line("Deleted \(name) from \((zone ?? AccountCloud.defaultZone).zoneName) of \(cloud.account)")
        return .success
    }

    func cloudRecordList() async throws -> ExitCode {
        let (world, cloud) = try accountCloud()
        let zone = try zoneOption()
        if let zone, !zone.isDefault { try requireDatabase(world, cloud, for: "no zone \(zone.zoneName)") }
        let records = hasDatabase(world, cloud) ? try await cloudCall { try await cloud.records(zone: zone) } : []
        if json {
            struct List: Encodable { let records: [CloudRecordJSON] }
            Terminal.json(List(records: records.map(CloudRecordJSON.init)))
        } else if records.isEmpty {
            Terminal.line("No records in \(zone.map { "zone \($0.zoneName) of " } ?? "")\(cloud.account)'s container.")
        } else {
            Terminal.table(
                [["NAME", "TYPE", "ZONE", "FIELDS"]]
                    + records.map { record in
                        [
                            record.recordID.recordName, record.recordType, record.recordID.zoneID.zoneName,
                            record.allKeys.compactMap { key in record[key].map { "\(key)=\(Formats.human($0))" } }
                                .joined(separator: " "),
                        ]
                    })
        }
        return .success
    }

    func cloudZoneList() async throws -> ExitCode {
        let (world, cloud) = try accountCloud()
        let zones = hasDatabase(world, cloud) ? try await cloudCall { try await cloud.zones() } : [ZoneID.default]
        if json {
            struct List: Encodable { let zones: [String] }
            Terminal.json(List(zones: zones.map(\.zoneName)))
        } else {
            for zone in zones { Terminal.line(zone.zoneName) }
        }
        return .success
    }

    func cloudZoneDelete() async throws -> ExitCode {
        let (world, cloud) = try accountCloud()
        let zone = try zoneID(command.arguments[0])
        if zone.isDefault { throw CLIError(.dataError, "the default zone cannot be deleted") }
        try requireDatabase(world, cloud, for: "no zone \(zone.zoneName)")
        try await cloudCall { try await cloud.deleteZone(zone) }
        Terminal.line("Deleted zone \(zone.zoneName) and its records from \(cloud.account)'s container")
        return .success
    }
}
