import Foundation
import Testing

/// Commands run at once by real child processes, and a world's files under a hostile umask or behind symbolic
/// links: no lost update, owner-only files, nothing outside the world touched.
@Suite("CLI: files, races and links")
struct CLIFilesTests {
    /// Race rounds in `make test`; `make torture` raises it with `PRIVATESYNC_TORTURE_RACES`.
    static var raceRounds: Int { Int(ProcessInfo.processInfo.environment["PRIVATESYNC_TORTURE_RACES"] ?? "") ?? 20 }

    /// Starts every command line at once as child processes and waits for all; returns their exit statuses.
    static func runTogether(_ cli: CLIRunner, _ commands: [[String]]) throws -> [Int32] {
        let processes = commands.map { arguments -> Process in
            let process = cli.process(arguments)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            return process
        }
        for process in processes { try process.run() }
        return processes.map { process in
            process.waitUntilExit()
            return process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
        }
    }

    static func device(_ cli: CLIRunner, _ name: String) throws -> [String: Any] {
        let list = try cli.ok("device", "list", "--json").json["devices"] as? [[String: Any]] ?? []
        return list.first { $0["name"] as? String == name } ?? [:]
    }

    // MARK: Item 2: no lost update

    /// Each round, on a new device (alice, sync on), races an account sign-in to bob against `other` (given the
    /// device's name): both must exit 0 and the sign-in must survive; `check` then looks at the device's entry.
    static func raceSignIn(
        against other: (String) -> [String], check: (_ device: [String: Any], _ round: Int) -> Void
    ) throws {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        for round in 0..<raceRounds {
            let name = "A\(round)"
            try cli.ok("device", "add", name, "--account", "alice", "--sync", "on")
            let statuses = try runTogether(cli, [["account", "sign-in", "bob", "--device", name], other(name)])
            #expect(statuses == [0, 0], "round \(round)")
            let device = try device(cli, name)
            #expect(device["account"] as? String == "bob", "round \(round): the sign-in was lost")
            check(device, round)
        }
    }

    @Test("an account sign-in and a device upgrade racing both survive, every round")
    func signInAndUpgradeRacing() throws {
        try Self.raceSignIn(against: { ["device", "upgrade", $0, "--entitlement", "off"] }) { device, round in
            #expect(device["entitlement"] as? Bool == false, "round \(round): the upgrade was lost")
            #expect(device["buildVersion"] as? Int == 2, "round \(round)")
        }
    }

    @Test("an account sign-in and an account status change racing: the sign-in always survives")
    func signInAndStatusRacing() throws {
        try Self.raceSignIn(against: { ["account", "status", "--set", "restricted", "--device", $0] }) {
            device, round in
            // Serialized, the status is `restricted` (sign-in first) or `available` (sign-in last, which resets it).
            #expect(["restricted", "available"].contains(device["accountStatus"] as? String ?? ""), "round \(round)")
        }
    }

    @Test("two upgrades racing give two build numbers, never the same one twice")
    func twoUpgradesRacing() throws {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        try cli.ok("device", "add", "A", "--account", "alice")
        let rounds = max(1, Self.raceRounds / 4)
        for round in 0..<rounds {
            let statuses = try Self.runTogether(cli, [["device", "upgrade", "A"], ["device", "upgrade", "A"]])
            #expect(statuses == [0, 0], "round \(round)")
        }
        #expect(try Self.device(cli, "A")["buildVersion"] as? Int == 1 + 2 * rounds)
    }

    // MARK: Item 3: owner-only files

    /// Runs `privatesync` under umask 000, set in the child's shell.
    static func runUnderUmaskZero(_ cli: CLIRunner, _ arguments: [String]) throws -> CLIRunner.Run {
        let quoted = (["--home", cli.home] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "umask 000; exec '\(CLIRunner.binary)' \(quoted)"]
        let error = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = error
        try process.run()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIRunner.Run(
            status: process.terminationStatus, signal: nil, standardOutput: "",
            standardError: String(decoding: errData, as: UTF8.self))
    }

    /// Every path under `root` (itself included) whose mode is not 0700 (folders) or 0600 (files).
    static func wrongModes(under root: String) throws -> [String] {
        var wrong: [String] = []
        var pending = [root]
        while let folder = pending.popLast() {
            let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int ?? 0
            if mode != 0o700 { wrong.append("\(folder) \(String(mode, radix: 8))") }
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                let path = folder + "/" + name
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                if isDirectory.boolValue {
                    pending.append(path)
                } else {
                    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? 0
                    if mode != 0o600 { wrong.append("\(path) \(String(mode, radix: 8))") }
                }
            }
        }
        return wrong
    }

    /// Every kind of command, in an order in which each succeeds: archives are made and restored, faults strike.
    static let everyKindOfCommand: [[String]] = [
        ["init"],
        ["device", "add", "A", "--account", "alice", "--sync", "on"],
        ["device", "add", "B", "--no-entitlement"],
        ["launch", "--device", "A"],
        ["record", "add", "CheckIn", "--device", "A", "--field", "mood=2", "--field", "date=now"],
        [
            "record", "add", "Baseline", "--device", "A", "--field", "metric=hrv", "--field", "value=1", "--field",
            "computedAt=now", "--field", "windowDays=7",
        ],
        ["fault", "inject", "network-failure", "--count", "1"],
        ["fault", "list"],
        ["sync", "now", "--device", "A"],
        ["sync", "now", "--device", "A"],
        ["account", "sign-in", "bob", "--device", "A"],
        ["sync", "now", "--device", "A"],
        ["account", "start-fresh", "--device", "A"],
        ["sync", "now", "--device", "A"],
        ["account", "sign-in", "alice", "--device", "A"],
        ["sync", "now", "--device", "A"],
        ["account", "start-fresh", "--device", "A"],
        ["sync", "now", "--device", "A"],
        ["account", "status", "--set", "restricted", "--device", "A"],
        ["account", "status", "--set", "available", "--device", "A"],
        ["sync", "off", "--device", "A"],
        ["sync", "on", "--device", "A"],
        ["sync", "status", "--device", "A"],
        ["record", "list", "--device", "A"],
        ["inspect", "--device", "A"],
        ["audit"],
        ["device", "list"],
        ["device", "upgrade", "B", "--entitlement", "on"],
        ["launch", "--device", "B"],
        ["device", "reinstall", "B", "--sync", "on"],
        ["launch", "--device", "B"],
        ["account", "sign-out", "--device", "A"],
        ["fault", "clear"],
    ]

    @Test("under umask 000, every file the world holds is 0600 and every folder 0700, after every kind of command")
    func ownerOnlyUnderUmaskZero() throws {
        let cli = CLIRunner.fresh()
        for arguments in Self.everyKindOfCommand {
            let run = try Self.runUnderUmaskZero(cli, arguments)
            let allowed: Set<Int32> = arguments.starts(with: ["sync", "now"]) ? CLIRunner.syncNowOutcomes : [0]
            #expect(allowed.contains(run.status), "\(arguments.joined(separator: " ")): \(run.standardError)")
            let wrong = try Self.wrongModes(under: cli.home)
            #expect(wrong.isEmpty, "after \(arguments.joined(separator: " ")): \(wrong)")
        }
        let archives = cli.home + "/devices/A/AppGroup/Library/Application Support/Archives"
        #expect(FileManager.default.fileExists(atPath: archives), "the archive folder was made")
    }

    // MARK: Item 4: no symbolic link out of the world

    /// A digest of every file and folder under `root`: paths, modes and bytes.
    static func treeDigest(_ root: String) throws -> [String: Data] {
        var digest: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return digest }
        while let relative = enumerator.nextObject() as? String {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? 0
            digest[relative] =
                (isDirectory.boolValue ? Data("dir".utf8) : try Data(contentsOf: URL(fileURLWithPath: path)))
                + Data("\(mode)".utf8)
        }
        return digest
    }

    struct LinkCase: Sendable, CustomTestStringConvertible {
        /// The path, under the world, replaced by a link to the outside folder.
        let place: String
        let testDescription: String
    }

    static let linkCases: [LinkCase] = [
        LinkCase(place: "devices/A/AppGroup/Library/Application Support", testDescription: "Application Support"),
        LinkCase(place: "devices/A", testDescription: "devices/A"),
        LinkCase(place: "devices/A/AppGroup", testDescription: "the App Group"),
        LinkCase(place: "cloud/alice", testDescription: "cloud/alice"),
        LinkCase(place: "devices/A/AppGroup/Library/Preferences", testDescription: "Preferences"),
    ]

    /// Commands that would create, change or delete something through each link.
    static let commandsThroughLinks: [[String]] = [
        ["launch", "--device", "A"],
        ["record", "add", "CheckIn", "--device", "A", "--field", "mood=2", "--field", "date=now"],
        ["sync", "now", "--device", "A"],
        ["device", "reinstall", "A"],
        ["account", "sign-in", "bob", "--device", "A"],
        ["device", "upgrade", "A"],
        ["record", "list", "--device", "A"],
        ["sync", "status", "--device", "A"],
        ["device", "add", "C", "--account", "alice"],
        ["audit"],
    ]

    @Test(
        "a symbolic link in place of a folder the world uses is refused with 74 naming it; outside is untouched",
        arguments: linkCases)
    func linksOutOfTheWorldAreRefused(link: LinkCase) throws {
        let cli = try CLIRunner.syncedWorld(device: "A", mood: 2)
        // Move the real folder outside, and leave a link to it in its place.
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)")
            .path
        let place = cli.home + "/" + link.place
        try FileManager.default.moveItem(atPath: place, toPath: outside)
        try FileManager.default.createSymbolicLink(atPath: place, withDestinationPath: outside)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let before = try Self.treeDigest(outside)
        for arguments in Self.commandsThroughLinks {
            let run = try cli.run(arguments)
            #expect(run.status == 74, "\(arguments.joined(separator: " ")) exited \(run.status): \(run.standardError)")
            #expect(run.standardError.contains(place), "\(arguments.joined(separator: " ")): \(run.standardError)")
            #expect(try Self.treeDigest(outside) == before, "\(arguments.joined(separator: " ")) changed \(outside)")
        }
    }

    @Test("a dangling symbolic link in place of Application Support creates nothing outside")
    func danglingLinkCreatesNothing() throws {
        let cli = CLIRunner.fresh()
        try cli.ok("init")
        try cli.ok("device", "add", "A", "--account", "alice", "--sync", "on")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)")
            .path
        let place = cli.home + "/devices/A/AppGroup/Library/Application Support"
        try FileManager.default.createSymbolicLink(atPath: place, withDestinationPath: outside)
        let run = try cli.run(["launch", "--device", "A"])
        #expect(run.status == 74)
        #expect(run.standardError.contains("symbolic link"))
        #expect(!FileManager.default.fileExists(atPath: outside))
    }
}

/// Commands that only read open the world's files read-only: they work on a read-only world, leave nothing
/// read-only behind, and a write that cannot be made names its real cause.
@Suite("CLI: read-only files")
struct CLIReadOnlyTests {
    static let reads: [[String]] = [
        ["sync", "status", "--device", "A"], ["record", "list", "--device", "A"], ["inspect", "--device", "A"],
        ["audit"], ["device", "list"], ["fault", "list"],
    ]

    static func store(_ cli: CLIRunner) -> String {
        cli.home + "/devices/A/AppGroup/Library/Application Support/UserCreated.store"
    }

    static func setMode(_ mode: Int, _ path: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    /// Sets every folder under `root` (itself included) and every file to the given modes.
    static func setModes(under root: String, folders: Int, files: Int) throws {
        var pending = [root]
        while let folder = pending.popLast() {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                let path = folder + "/" + name
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                if isDirectory.boolValue { pending.append(path) } else { try setMode(files, path) }
            }
            try setMode(folders, folder)
        }
    }

    @Test("reads of a 0400 store leave no read-only -shm, and writes work once permissions come back")
    func readOnlyStoreLeavesNothingBehind() throws {
        let cli = try CLIRangeTests.world()
        let store = Self.store(cli)
        try Self.setMode(0o400, store)
        // The convergence audit and the world page read every device too (written outside the world).
        for arguments in Self.reads + [["audit", "--convergence"], ["inspect", "--html", cli.home + ".page.html"]] {
            let run = try cli.run(arguments)
            #expect(run.status == 0, "\(arguments.joined(separator: " ")): \(run.standardError)")
        }
        for suffix in ["-shm", "-wal"] {
            #expect(!FileManager.default.fileExists(atPath: store + suffix), "a read left \(suffix) behind")
        }
        try Self.setMode(0o600, store)
        try cli.ok("record", "add", "CheckIn", "--device", "A", "--field", "mood=4", "--field", "date=now")
        try cli.syncNow("--device", "A")
    }

    @Test("on a read-only world, every read works and writes nothing; audit finds every store readable")
    func readsWorkOnAReadOnlyWorld() throws {
        let cli = try CLIRangeTests.world()
        try cli.ok("fault", "inject", "zone-busy")
        let before = try cli.worldDigest()
        let paths = Set(FileManager.default.subpaths(atPath: cli.home) ?? [])
        try Self.setModes(under: cli.home, folders: 0o500, files: 0o400)
        defer { try? Self.setModes(under: cli.home, folders: 0o700, files: 0o600) }
        // The convergence audit and the world page read every device too (written outside the world).
        for arguments in Self.reads + [["audit", "--convergence"], ["inspect", "--html", cli.home + ".page.html"]] {
            let run = try cli.run(arguments)
            #expect(run.status == 0, "\(arguments.joined(separator: " ")): \(run.standardError)")
            #expect(!run.standardError.contains("unreadable"), "\(arguments.joined(separator: " "))")
        }
        #expect(try cli.worldDigest() == before)
        // Not even a `-shm` or `-wal` was created (root, whom permissions do not stop, would otherwise create them).
        #expect(Set(FileManager.default.subpaths(atPath: cli.home) ?? []) == paths)
    }

    @Test("a write to a read-only store names the store; a read-only -shm is named as the cause")
    func writeErrorsNameTheRealCause() throws {
        let cli = try CLIRangeTests.world()
        let store = Self.store(cli)
        let add = ["record", "add", "CheckIn", "--device", "A", "--field", "mood=4", "--field", "date=now"]
        try Self.setMode(0o400, store)
        let readOnlyStore = try cli.run(add)
        #expect(readOnlyStore.status == 74)
        #expect(readOnlyStore.standardError.contains(store + " cannot be written"), "\(readOnlyStore.standardError)")
        try Self.setMode(0o600, store)
        // A read-only -shm, as an older build's read of a 0400 store left.
        #expect(FileManager.default.createFile(atPath: store + "-shm", contents: Data(count: 32_768)))
        try Self.setMode(0o400, store + "-shm")
        let readOnlyIndex = try cli.run(add)
        #expect(readOnlyIndex.status == 74)
        #expect(readOnlyIndex.standardError.contains(store + "-shm"), "\(readOnlyIndex.standardError)")
        try FileManager.default.removeItem(atPath: store + "-shm")
        #expect(try cli.run(add).status == 0)
    }
}
