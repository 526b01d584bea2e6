import ArgumentParsing
import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension CLI {
    private struct InspectJSON: Encodable {
        struct Counts: Encodable {
            let partition: String
            let local: Int
            let container: Int
        }

        let device: String
        let account: String?
        let types: [String: Counts]
        let pendingChanges: Int
        let storeFiles: [String]
        let containerFile: String?
        let engine: EngineJSON?
        let status: StatusJSON
    }

    /// The engine's state, as `inspect --json` shows it: tokens are opaque (hex), as CKSyncEngine's are.
    private struct EngineJSON: Encodable {
        let boundUser: String?
        let zone: String
        let zoneReady: Bool
        let zoneChangeToken: String?
        let databaseChangeToken: String?
        let reuploadConsent: Bool
        let pause: String?
        let lastOutcome: String?
        let lastError: String?
        let nextAttempt: String?
        let batchSize: Int
        let initialFetchDone: Bool

        init(_ state: EngineState, zone: String) {
            func hex(_ bytes: [UInt8]?) -> String? {
                let digits = Array("0123456789abcdef")
                return bytes.map { String($0.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }) }
            }
            boundUser = state.boundUser?.recordName
            self.zone = zone
            zoneReady = state.zoneReady
            zoneChangeToken = hex(state.zoneChangeToken)
            databaseChangeToken = hex(state.databaseChangeToken)
            reuploadConsent = state.reuploadConsent
            pause = state.pause?.rawValue
            lastOutcome = state.lastOutcome?.encoded
            lastError = state.lastError
            nextAttempt = state.nextAttempt.map(Formats.iso)
            batchSize = state.batchSize
            initialFetchDone = state.initialFetchDone
        }
    }

    func inspect() throws -> ExitCode {
        if command.option("html") != nil { return try inspectHTML() }
        guard command.option("device") != nil else { throw CLIError(.usage, "missing option '--device NAME'") }
        let world = try world()
        let app = try resumedApp(in: world, readOnly: true)
        let account = app.device.session.account
        let userCounts = try app.stores.userCreated.countsByType()
        let localCounts = try app.stores.localOnly.countsByType()
        var containerFile: String?
        var containerCounts: [String: Int] = [:]
        if let account {
            let path = world.containerPath(account: account)
            containerFile = path
            if FileSystem.exists(path) { containerCounts = try ContainerFile.countsByType(path) }
        }
        var types: [String: InspectJSON.Counts] = [:]
        for type in world.partition.schema.recordTypes {
            let partition = world.partition.partition(of: type.name) ?? .userCreated
            let local = (partition == .userCreated ? userCounts : localCounts)[type.name] ?? 0
            let container = containerCounts[type.name] ?? 0
            if local > 0 || container > 0 {
                types[type.name] = .init(partition: partition.rawValue, local: local, container: container)
            }
        }
        for (type, count) in containerCounts where types[type] == nil {
            types[type] = .init(partition: "unknown", local: 0, container: count)
        }
        let status = try app.status()
        let report = InspectJSON(
            device: app.device.name, account: account?.rawValue, types: types,
            pendingChanges: try app.stores.userCreated.pendingChangeCount(),
            storeFiles: [app.stores.userCreated.path, app.stores.localOnly.path], containerFile: containerFile,
            engine: EngineJSON(
                try app.engineState(),
                zone: app.engine?.zoneID.zoneName ?? SyncEngine.defaultZoneName),
            status: StatusJSON(status))
        if json {
            Terminal.json(report)
            return .success
        }
        Terminal.line(
            "\(report.device): iCloud account \(report.account ?? "none"); sync is \(status.description)")
        if types.isEmpty {
            Terminal.line("No records, on the device or in the container.")
        } else {
            Terminal.table(
                [["TYPE", "PARTITION", "ON DEVICE", "IN CONTAINER"]]
                    + types.keys.sorted().map { name in
                        let counts = types[name]!
                        return [name, counts.partition, "\(counts.local)", "\(counts.container)"]
                    })
        }
        Terminal.line("Pending changes: \(report.pendingChanges)")
        Terminal.line("Store files: \(report.storeFiles.joined(separator: ", "))")
        Terminal.line("Container file: \(containerFile ?? "none (no account signed in)")")
        return .success
    }

    func audit() throws -> ExitCode {
        if command.flag("convergence") { return try convergenceAudit() }
        let world = try world()
        let report = try world.audit()
        if json {
            struct FindingJSON: Encodable {
                let kind: String
                let file: String
                let record: String?
                let detail: String
            }
            struct AuditJSON: Encodable {
                let clean: Bool
                let containersChecked: Int
                let recordsChecked: Int
                let findings: [FindingJSON]
            }
            Terminal.json(
                AuditJSON(
                    clean: report.isClean, containersChecked: report.containersChecked,
                    recordsChecked: report.recordsChecked,
                    findings: report.findings.map {
                        FindingJSON(kind: $0.kind.rawValue, file: $0.file, record: $0.recordName, detail: $0.detail)
                    }))
        } else if report.isClean {
            Terminal.line(
                "Audit clean: \(report.recordsChecked) record(s) in \(report.containersChecked) container file(s); no local-only "
                    + "record left its device, and no record reached another account.")
        } else {
            Terminal.line("Audit found \(report.findings.count) problem(s):")
            for finding in report.findings {
                Terminal.line("  \(finding.kind.rawValue): \(finding.detail) [\(finding.file)]")
            }
        }
        return report.isClean ? .success : .checkFailed
    }

    func faultInject() throws -> ExitCode {
        let world = try world()
        guard let faults = world.faults as? PersistentFaults else {
            throw CLIError(.internalError, "this world keeps no fault file")
        }
        let kind = FaultKind(rawValue: command.arguments[0])!
        let count = try wholeNumber("count", from: 1) ?? 1
        let after = try wholeNumber("after", from: 0) ?? 0
        let retryAfter = try command.option("retry-after").map { text throws(CLIError) -> Double in
            guard let value = Double(text), value.isFinite, value >= 0, value <= 86_400 else {
                throw CLIError(
                    .dataError,
                    "--retry-after must be a number of seconds from 0 to 86400; got '\(TextEscaping.escape(text.prefix(40)))'"
                )
            }
            return value
        }
        let account = try account(command.option("account"))
        let record = try command.option("record").map { text throws(CLIError) in try recordName(text) }
        // A device aimed at must exist: a misspelt name would otherwise wait for calls that never come.
        let device = try command.option("device").map { name throws in try world.device(name).name }
        try faults.inject(
            Fault(kind, retryAfter: retryAfter, record: record), account: account, device: device, count: count,
            after: after)
        var aim = [account.map { "account \($0)" } ?? "any account"]
        if let device { aim.append("device \(device)") }
        if let record { aim.append("record \(record)") }
        Terminal.line(
            "Injected \(kind) for the next \(count) call(s) it applies to"
                + (after > 0 ? " after letting \(after) through" : "") + ", for " + aim.joined(separator: ", "))
        return .success
    }

    /// The whole number given with `--NAME`, from `minimum` to ``PersistentFaults/maximumCount``, or `nil`.
    private func wholeNumber(_ name: String, from minimum: Int) throws(CLIError) -> Int? {
        try command.option(name).map { text throws(CLIError) -> Int in
            guard let value = Int(text), value >= minimum, value <= PersistentFaults.maximumCount else {
                throw CLIError(
                    .dataError,
                    "--\(name) must be a whole number from \(minimum) to \(PersistentFaults.maximumCount); got '\(TextEscaping.escape(text.prefix(40)))'"
                )
            }
            return value
        }
    }

    func faultList() throws -> ExitCode {
        let world = try world()
        guard let faults = world.faults as? PersistentFaults else {
            throw CLIError(.internalError, "this world keeps no fault file")
        }
        let entries = try faults.entries()
        let struck = try faults.struckCounts()
        if json {
            struct EntryJSON: Encodable {
                let kind: String
                let account: String?
                let device: String?
                let record: String?
                let remaining: Int
                let after: Int
                let retryAfter: Double?
            }
            struct FaultsJSON: Encodable {
                let waiting: [EntryJSON]
                let struck: [String: Int]
            }
            Terminal.json(
                FaultsJSON(
                    waiting: entries.map {
                        EntryJSON(
                            kind: $0.kind.rawValue, account: $0.account?.rawValue, device: $0.device,
                            record: $0.record, remaining: $0.remaining, after: $0.after, retryAfter: $0.retryAfter)
                    }, struck: Dictionary(uniqueKeysWithValues: struck.map { ($0.key.rawValue, $0.value) })))
            return .success
        }
        if entries.isEmpty {
            Terminal.line("No faults waiting.")
        } else {
            Terminal.table(
                [["KIND", "ACCOUNT", "DEVICE", "RECORD", "REMAINING", "AFTER", "RETRY AFTER"]]
                    + entries.map {
                        [
                            $0.kind.rawValue, $0.account?.rawValue ?? "any", $0.device ?? "any", $0.record ?? "any",
                            "\($0.remaining)", "\($0.after)", $0.retryAfter.map { "\($0)s" } ?? "-",
                        ]
                    })
        }
        if !struck.isEmpty {
            Terminal.line(
                "Struck so far: "
                    + struck.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        return .success
    }

    func faultClear() throws -> ExitCode {
        let world = try world()
        guard let faults = world.faults as? PersistentFaults else {
            throw CLIError(.internalError, "this world keeps no fault file")
        }
        // Rows are removed without being read, so that a hand-edited row out of range can be cleared.
        let count = try faults.clear()
        Terminal.line("Cleared \(count) waiting fault(s).")
        return .success
    }
}
