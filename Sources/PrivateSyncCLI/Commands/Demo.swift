import DeviceStore
import PrivateCloud
import PrivateCloudFaults
import PrivateSync
import PrivateSyncFileSystem
import SimulatedWorld

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `privatesync demo`: a scripted walk through a fresh world, a line per step.
struct Demo {
    /// The world's folder; a new temporary one when `nil`.
    let home: String?

    func run() async throws -> ExitCode {
        let home = try self.home ?? Self.temporaryFolder()
        if FileSystem.exists(home) && !((try? FileSystem.contents(ofDirectory: home)) ?? ["?"]).isEmpty {
            throw CLIError(.dataError, "the demo needs a new folder; \(home) exists and is not empty")
        }
        let world = try World.create(at: home)
        let cli = "privatesync --home \(home)"
        Terminal.line("PrivateSync demo: a fresh world at \(home)")
        Terminal.line(
            "  schema: the demo health app (35 user-created types, 5 local-only), container \(world.containerIdentifier)"
        )

        // 1. Trap 1 reproduced.
        Terminal.line("")
        Terminal.line("1. Trap 1 reproduced: a genuine first launch, sync on, without creating the store folder first")
        try world.addDevice("first-launch", account: try AccountID("alice"), syncPreference: true)
        let trapped = try world.launch("first-launch", options: .init(skipDirectoryFix: true))
        Terminal.line("   → \(try trapped.status().copy) [\(try trapped.status().description), fallback flag set]")
        Terminal.line("   → the cloud store failed: \(trapped.record.fallbackDetail ?? "?")")
        let second = try world.launch("first-launch", options: .init(skipDirectoryFix: true))
        Terminal.line(
            "   The second launch (the local fallback created the folder): sync is \(try second.status().description)")
        Terminal.line("   reproduce: \(cli) launch --device first-launch --skip-directory-fix")

        // 2. Trap 1 fixed.
        Terminal.line("")
        Terminal.line("2. Trap 1 fixed: the folder is created synchronously before any store opens")
        try world.addDevice("phone", account: try AccountID("alice"), syncPreference: true)
        let phone = try world.launch("phone")
        Terminal.line("   → the genuine first launch syncs: \(try phone.status().description)")

        // 3. Trap 2 reproduced, in a child process so that the demo survives the trap.
        Terminal.line("")
        Terminal.line("3. Trap 2 reproduced: a build without the iCloud entitlement, the check skipped")
        try world.addDevice("no-entitlement", account: try AccountID("alice"), syncPreference: true, entitlement: false)
        let arguments = ["--home", home, "launch", "--device", "no-entitlement", "--skip-entitlement-check"]
        if let child = ChildProcess.run(ChildProcess.currentExecutable, arguments) {
            switch child.termination {
            case .signalled(let signal):
                Terminal.line(
                    "   → the launch process died by signal \(signal)\(signal == SIGTRAP ? " (SIGTRAP)" : ""): no catch could help"
                )
            case .exited(let code):
                Terminal.line("   → UNEXPECTED: the launch process exited with \(code) instead of trapping")
            }
            let line = child.standardError.split(separator: "\n").first { $0.contains("Significant issue") }
            Terminal.line("   → CloudKit said: \(line.map { String($0.prefix(140)) + "…" } ?? "(nothing)")")
        } else {
            Terminal.line("   → could not start a child process to show the trap")
        }
        Terminal.line("   reproduce: \(cli) launch --device no-entitlement --skip-entitlement-check")

        // 4. Trap 2 fixed.
        Terminal.line("")
        Terminal.line("4. Trap 2 fixed: the entitlement is checked before any container code runs")
        let checked = try world.launch("no-entitlement")
        Terminal.line("   → \(try checked.status().copy) [\(try checked.status().description)]")

        // 5. Two devices converging; local-only records stay home.
        Terminal.line("")
        Terminal.line("5. Two devices on alice's account write records of both kinds and sync")
        try world.addDevice("tablet", account: try AccountID("alice"), syncPreference: true)
        let tablet = try world.launch("tablet")
        // The world's clock, as `record add` reads "now".
        let now = world.options.clock.now()
        try phone.add("CheckIn", fields: ["mood": .int64(4), "date": .date(now), "note": .string("slept well")])
        try phone.add("CheckIn", fields: ["mood": .int64(2), "date": .date(now)])
        try phone.add(
            "Baseline",
            fields: [
                "metric": .string("restingHeartRate"), "value": .double(58), "computedAt": .date(now),
                "windowDays": .int64(28),
            ])
        try tablet.add(
            "Note",
            fields: ["title": .string("Ask the GP"), "body": .string("about the new tablets"), "date": .date(now)])
        try tablet.add(
            "ManualWorkout",
            fields: ["activity": .string("swim"), "startedAt": .date(now), "durationMinutes": .double(40)])
        Terminal.line(
            "   phone: 2 CheckIns and a Baseline (local-only); tablet: a Note and a ManualWorkout (local-only)")
        for round in 1...2 {
            for app in [phone, tablet] {
                guard let report = await app.sync(force: true) else { continue }
                if report.sentSaves + report.fetchedModifications > 0 || round == 1 {
                    Terminal.line(
                        "   sync \(app.device.name): sent \(report.sentSaves), fetched \(report.fetchedModifications)")
                }
            }
        }
        let cloud = try world.containerRecords(account: try AccountID("alice"))
        let types = Dictionary(grouping: cloud, by: \.recordType).map { "\($0.key) \($0.value.count)" }.sorted()
        Terminal.line(
            "   → phone holds \(try phone.stores.userCreated.count()), tablet \(try tablet.stores.userCreated.count()) "
                + "user-created records; alice's container holds \(cloud.count) (\(types.joined(separator: ", ")))")
        Terminal.line("   → phone: \(try phone.status().description); tablet: \(try tablet.status().description)")

        // 6. The audit.
        Terminal.line("")
        Terminal.line("6. Audit of every container file")
        let audit = try world.audit()
        Terminal.line(
            audit.isClean
                ? "   → clean: \(audit.recordsChecked) records checked; the local-only Baseline and ManualWorkout never left their devices"
                : "   → PROBLEMS: \(audit.findings.map(\.description).joined(separator: "; "))")

        // 7. Faults, and the honest status they produce.
        Terminal.line("")
        Terminal.line("7. Faults, and the status they produce")
        guard let faults = world.faults as? PersistentFaults else { throw CLIError(.internalError, "no fault file") }
        try phone.add("Symptom", fields: ["name": .string("headache"), "severity": .int64(2), "startedAt": .date(now)])
        try faults.inject(Fault(.networkUnavailable), account: nil, count: 1)
        await phone.sync(force: true)
        Terminal.line("   the network drops while phone has a new Symptom → \(try phone.status().copy)")
        try faults.inject(Fault(.quotaExceeded), account: nil, count: 1)
        await phone.sync(force: true)
        Terminal.line("   alice's iCloud storage fills up → \(try phone.status().copy)")
        await phone.sync(force: true)
        Terminal.line("   space is freed, pull to refresh → \(try phone.status().copy)")

        Terminal.line("")
        Terminal.line("Done. The world stays at \(home); explore it:")
        Terminal.line("  \(cli) device list")
        Terminal.line("  \(cli) inspect --device phone")
        Terminal.line("  \(cli) record list --device tablet")
        Terminal.line(
            "  sqlite3 \(world.containerPath(account: try AccountID("alice"))) 'SELECT record_type, count(*) FROM records GROUP BY 1'"
        )
        return audit.isClean ? .success : .checkFailed
    }

    static func temporaryFolder() throws -> String {
        do {
            return try FileSystem.makeTemporaryDirectory(prefix: "privatesync-demo") + "/world"
        } catch {
            throw CLIError(.ioError, "cannot create a temporary folder under /tmp", underlying: error)
        }
    }
}
