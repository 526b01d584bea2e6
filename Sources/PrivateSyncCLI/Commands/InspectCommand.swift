import ArgumentParsing
import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import SimulatedWorld

/// `privatesync inspect`.
struct InspectCommand: RunnableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "inspect",
            abstract: "Per type, records on the device and in its account's container; pending changes; files.",
            discussion:
                "With --html FILE (and no --device): a page of the whole world instead, with every device, its stores by type, its status sentence and pending changes, and each account's container; one self-contained HTML file that loads nothing.",
            examples: ["privatesync inspect --device phone", "privatesync inspect --html world.html"])
    }

    @Option(valueName: "NAME", help: "The device (required unless --html).") var device: String?
    @Option(valueName: "FILE", help: "Write a page of the whole world to FILE.") var html: String?
    @Flag(help: CommandHelp.json) var json: Bool

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
        /// The app engine's state; `null` on a device whose build is CKSyncEngine's delegate, which keeps its own.
        let engine: EngineJSON?
        /// What syncs the build's user-created store: `app` or `cksyncengine`.
        let syncEngine: String
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
            zoneChangeToken = hex(state.zoneChangeToken?.bytes)
            databaseChangeToken = hex(state.databaseChangeToken?.bytes)
            reuploadConsent = state.reuploadConsent
            pause = state.pause?.rawValue
            lastOutcome = state.lastOutcome?.encoded
            lastError = state.lastError
            nextAttempt = state.nextAttempt.map(Formats.iso)
            batchSize = state.batchSize
            initialFetchDone = state.initialFetchDone
        }
    }

    func validate() throws {
        if html != nil {
            guard device == nil else {
                throw CLIError(.usage, "--html shows the whole world: give it without --device")
            }
            guard !json else { throw CLIError(.usage, "give --html or --json, not both") }
        } else if device == nil {
            throw CLIError(.usage, "missing option '--device NAME'")
        }
    }

    func run(_ cli: CLI) throws -> ExitCode {
        if let html { return try page(to: html, cli) }
        guard let device else { throw CLIError(.usage, "missing option '--device NAME'") }
        let world = try cli.world()
        let app = try cli.resumedApp(device, in: world, readOnly: true)
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
            engine: cli.isMirrored(app)
                ? nil
                : EngineJSON(
                    try app.engineState(), zone: app.engine?.zoneID.zoneName ?? SyncEngine.defaultZoneName),
            syncEngine: app.device.profile.build.syncEngine.rawValue, status: StatusJSON(status))
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

    /// `inspect --html FILE`: a page of the whole world (``WorldPage``), written to FILE.
    ///
    /// - Returns: Success, once the page is written.
    /// - Throws: ``CLIError`` 64 for an empty FILE; what ``PageFile`` refuses; what opening and reading the world
    ///   throws. (`--device` and `--json` are refused by ``validate()``.)
    private func page(to path: String, _ cli: CLI) throws -> ExitCode {
        try PageFile.check(path, option: "--html")
        let world = try cli.world()
        let overview = try world.overview()
        try PageFile.write(WorldPage.render(overview, home: cli.home), to: path, option: "--html")
        // Printed to standard output (`-`), the page is the whole output.
        guard path != "-" else { return .success }
        Terminal.line(
            "Wrote the world page (\(overview.devices.count) device(s), \(overview.accounts.count) account(s)) to \(path)"
        )
        return .success
    }
}
