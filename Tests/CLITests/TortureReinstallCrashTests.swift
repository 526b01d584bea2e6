import Foundation
import PrivateSyncSQLite
import Testing

/// A reinstall killed at each of its durable steps: every `mkdir`, `rename`, `unlink`, `rmdir` and `fsync` it makes,
/// in turn, is where strace kills it (`-e inject=SYSCALL:signal=KILL:when=N`, N = 1, 2, … until the reinstall runs
/// through). After each kill the device must launch, sync and list its records, every file must pass
/// `integrity_check`, and the device must hold either its old records or none (a fresh install).
///
/// The reinstall once removed the App Group's files in name order: killed between `UserCreated.store` and its
/// `-wal`, it left a log beside no database, which SQLite replayed into the next launch's new store (corrupt, every
/// command 74); killed after emptying the folder, it left no `Library`, and every launch failed. It now moves the old
/// `Library` aside whole, lays out a fresh one, and removes the old; the next launch finishes what a kill
/// interrupted.
@Suite(
    "Torture: a reinstall killed at every step", .serialized,
    .enabled(if: reinstallStrace != nil, "needs strace (.ci/run installs it)"))
struct TortureReinstallCrashTests {
    static let syscalls = ["mkdir", "rename", "unlink", "rmdir", "fsync"]

    @Test("a reinstall killed at any of its steps leaves a device that launches, syncs and holds old or no records")
    func killedReinstallLeavesAUsableDevice() throws {
        let strace = try #require(reinstallStrace)
        let cli = try CLIRunner.world(launching: "A")
        var kills = 0
        for syscall in Self.syscalls {
            var point = 1
            while point < 50 {
                let note = try cli.ok(
                    "record", "add", "Note", "--device", "A", "--field", "title=\(syscall)\(point)", "--field",
                    "body=b",
                    "--field", "date=now"
                ).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                try cli.syncNow("--device", "A")
                let process = Process()
                process.executableURL = URL(fileURLWithPath: strace)
                process.arguments = [
                    "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(syscall)",
                    "-e", "inject=\(syscall):signal=KILL:when=\(point)",
                    CLIRunner.binary, "--home", cli.home, "device", "reinstall", "A", "--sync", "on",
                ]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
                let killed = process.terminationReason == .uncaughtSignal || process.terminationStatus == 137
                let line = "reinstall killed at \(syscall) #\(point)"
                try cli.ok(["launch", "--device", "A"], sourceLocation: #_sourceLocation)
                try cli.syncNow("--device", "A")
                let names = try TortureFilesTests.recordNames(cli, "A")
                #expect(names.isEmpty || names.contains(note), "\(line): the device holds neither its records nor none")
                for file in try TortureKillTests.databaseFiles(cli.home) {
                    let connection = try Connection(path: file, mode: .readOnly)
                    #expect(
                        try connection.query("PRAGMA integrity_check") { $0.text(0) } == ["ok"], "\(line): \(file)")
                }
                // The sync switch the reinstall restores, or (killed before it wrote it) never set: on again.
                try cli.ok("sync", "on", "--device", "A")
                guard killed else { break }
                kills += 1
                point += 1
            }
        }
        #expect(kills >= 10, "the reinstall was killed at its steps")
        print("reinstall torture: killed at \(kills) step(s) of \(Self.syscalls.joined(separator: ", "))")
    }
}

/// The `strace` command, where it is installed.
private let reinstallStrace: String? = ["/usr/bin/strace", "/bin/strace"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}
