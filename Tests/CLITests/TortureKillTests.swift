import Foundation
import PrivateSyncSQLite
import Testing

/// Kill torture: two devices write records and sync as separate processes, one of which is killed with SIGKILL
/// at random moments; after each kill the app is relaunched and synced. At the end nothing acknowledged is lost,
/// the audit is clean, and every store and container file passes `PRAGMA integrity_check`.
///
/// Rounds go on until that many processes died by SIGKILL mid-flight: 20 in `make test`, 200 in `make torture`
/// (`PRIVATESYNC_TORTURE_KILLS`). The commands and the moments of the kills are drawn from a seeded generator
/// (`PRIVATESYNC_TORTURE_SEED`, 11 by default), printed first, so that a failing run can be replayed.
@Suite("Torture: kill")
struct TortureKillTests {
    static var kills: Int { Int(ProcessInfo.processInfo.environment["PRIVATESYNC_TORTURE_KILLS"] ?? "") ?? 20 }

    /// A command started in the background, to be killed or waited for.
    struct Child {
        let process: Process
        let output: Pipe

        static func start(_ cli: CLIRunner, _ arguments: [String]) throws -> Child {
            let process = cli.process(arguments)
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            return Child(process: process, output: output)
        }

        /// Waits, and returns the exit status (nil when killed) and the standard output.
        func finish() -> (Int32?, String) {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let status = process.terminationReason == .exit ? process.terminationStatus : nil
            return (status, String(decoding: data, as: UTF8.self))
        }
    }

    /// A command of a device's loop: a write of either partition, or a sync.
    static func command(_ device: String, _ random: inout SeededGenerator) -> [String] {
        switch Int.random(in: 0..<5, using: &random) {
        case 0, 1:
            return [
                "record", "add", "CheckIn", "--device", device, "--field",
                "mood=\(Int.random(in: 0..<5, using: &random))", "--field",
                "date=now",
            ]
        case 2:
            return [
                "record", "add", "Baseline", "--device", device, "--field", "metric=hrv", "--field", "value=50",
                "--field", "computedAt=now", "--field", "windowDays=7",
            ]
        default:
            return ["sync", "now", "--device", device]
        }
    }

    @Test("SIGKILL at random moments loses no acknowledged write and corrupts no file")
    func killsLoseNothing() throws {
        let cli = try CLIRunner.world(launching: "phone", "tablet")
        let seed = SeededGenerator.tortureSeed
        print("kill torture: seed \(seed) (replay with PRIVATESYNC_TORTURE_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        var acknowledged: [String: [String: String]] = ["phone": [:], "tablet": [:]]  // device → name → type
        var killed = 0
        var round = 0
        // Rounds go on until the target number of processes died by SIGKILL mid-flight (a kill that comes after a
        // process finished does not count), with a bound so that a machine where nothing can be caught fails.
        while killed < Self.kills {
            round += 1
            try #require(
                round <= Self.kills * 10, "only \(killed) of \(Self.kills) kills landed in \(round - 1) rounds")
            let victim = round % 2 == 0 ? "phone" : "tablet"
            let other = victim == "phone" ? "tablet" : "phone"
            let victimCommand = Self.command(victim, &random)
            let otherCommand = Self.command(other, &random)
            let victimChild = try Child.start(cli, victimCommand)
            let otherChild = try Child.start(cli, otherCommand)
            usleep(UInt32.random(in: 0..<40_000, using: &random))
            if victimChild.process.isRunning {
                kill(victimChild.process.processIdentifier, SIGKILL)
            }
            for (device, command, child) in [(victim, victimCommand, victimChild), (other, otherCommand, otherChild)] {
                let (status, output) = child.finish()
                if status == nil { killed += 1 }
                // A name printed by `record add` that exited 0 is an acknowledged write.
                if status == 0, command[1] == "add" {
                    acknowledged[device]![output.trimmingCharacters(in: .whitespacesAndNewlines)] = command[2]
                }
                #expect(
                    status == nil || status == 0,
                    "round \(round) (seed \(seed)): \(command.joined(separator: " ")) failed with \(status ?? -1)")
            }
            // The killed app is opened again and synced.
            try cli.ok("launch", "--device", victim)
            try cli.ok("sync", "now", "--device", victim)
        }
        print(
            "kill torture (seed \(seed)): \(killed) process(es) killed mid-flight in \(round) rounds, "
                + "\(acknowledged.values.map(\.count).reduce(0, +)) acknowledged write(s)")
        for _ in 0..<3 {
            for device in ["phone", "tablet"] { try cli.ok("sync", "now", "--device", device) }
        }
        // Every acknowledged write is on its device; user-created ones are on the other device and in the container.
        var names: [String: Set<String>] = [:]
        for device in ["phone", "tablet"] {
            let records =
                try cli.ok("record", "list", "--device", device, "--json").json["records"] as? [[String: Any]] ?? []
            names[device] = Set(records.compactMap { $0["name"] as? String })
        }
        let container = try Connection(path: cli.home + "/cloud/alice/iCloud.com.example.me.sqlite", mode: .readOnly)
        let inContainer = Set(try container.query("SELECT record_name FROM records") { $0.text(0) })
        for (device, records) in acknowledged {
            for (name, type) in records {
                #expect(names[device]!.contains(name), "\(device) lost its acknowledged \(type) \(name)")
                if type == "CheckIn" {
                    #expect(inContainer.contains(name), "acknowledged \(name) never reached the container")
                    #expect(
                        names["phone"]!.contains(name) && names["tablet"]!.contains(name),
                        "\(name) did not reach both devices")
                }
            }
        }
        #expect(acknowledged.values.map(\.count).reduce(0, +) > 0)
        #expect(try cli.run(["audit"]).status == 0)
        for file in try Self.databaseFiles(cli.home) {
            let connection = try Connection(path: file, mode: .readOnly)
            #expect(try connection.query("PRAGMA integrity_check") { $0.text(0) } == ["ok"], "\(file) is corrupt")
        }
    }

    /// Every store and container file of a world.
    static func databaseFiles(_ home: String) throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: home)!
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.hasSuffix(".store") || relative.hasSuffix(".sqlite") { files.append(home + "/" + relative) }
        }
        return files
    }
}
