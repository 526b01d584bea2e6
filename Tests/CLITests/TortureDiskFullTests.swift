import Foundation
import Testing

/// Disk-full torture, where the machine allows mounting a small tmpfs: writes that cannot complete fail cleanly
/// (exit 74, naming the file), nothing acknowledged is lost, the files stay sound, and writing works again once
/// space is freed.
@Suite("Torture: disk full")
struct TortureDiskFullTests {
    /// Mounts a tmpfs of `megabytes` at a new folder, or returns `nil` when this machine does not allow it.
    static func mountSmallDisk(megabytes: Int) -> String? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "privatesync-full-\(UUID().uuidString)"
        ).path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", folder]
        mount.standardError = FileHandle.nullDevice
        guard (try? mount.run()) != nil else { return nil }
        mount.waitUntilExit()
        return mount.terminationStatus == 0 ? folder : nil
    }

    static func unmount(_ folder: String) {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = [folder]
        try? umount.run()
        umount.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }

    static let canMount: Bool = {
        guard let folder = mountSmallDisk(megabytes: 1) else { return false }
        unmount(folder)
        return true
    }()

    @Test(
        "a full disk fails writes cleanly and loses nothing acknowledged",
        .enabled(if: canMount, "needs permission to mount a tmpfs"))
    func fullDiskLosesNothing() throws {
        let disk = try #require(Self.mountSmallDisk(megabytes: 3))
        defer { Self.unmount(disk) }
        let cli = CLIRunner(home: disk + "/world")
        try cli.ok("init")
        try cli.ok("device", "add", "phone", "--account", "alice", "--sync", "on")
        try cli.ok("launch", "--device", "phone")
        // Space to free later, as a user deleting something else would.
        let filler = disk + "/filler"
        try Data(repeating: 0, count: 400_000).write(to: URL(fileURLWithPath: filler))
        let big = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-note-\(UUID().uuidString)")
            .path
        try Data(repeating: UInt8(ascii: "x"), count: 60_000).write(to: URL(fileURLWithPath: big))
        defer { try? FileManager.default.removeItem(atPath: big) }
        var acknowledged: [String] = []
        var failure: CLIRunner.Run?
        for _ in 0..<200 {
            let run = try cli.run([
                "record", "add", "CheckIn", "--device", "phone", "--field", "mood=3", "--field", "date=now", "--field",
                "note=@\(big)",
            ])
            if run.status == 0 {
                acknowledged.append(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
                continue
            }
            failure = run
            break
        }
        let full = try #require(failure, "the disk never filled")
        #expect(full.signal == nil)
        #expect(full.status == 75, "a full disk is transient; stderr: \(full.standardError)")
        #expect(full.standardError.contains("the disk is full"), "\(full.standardError)")
        #expect(acknowledged.count > 5)
        // On a full disk even a read may fail (SQLite cannot create the -shm index), so free space first, as a
        // user would, then check that every acknowledged write survived and that writing works again.
        try FileManager.default.removeItem(atPath: filler)
        let listed =
            try cli.ok("record", "list", "--device", "phone", "--json").json["records"] as? [[String: Any]] ?? []
        #expect(
            Set(listed.compactMap { $0["name"] as? String }).isSuperset(of: acknowledged),
            "an acknowledged write was lost")
        let after = try cli.run([
            "record", "add", "CheckIn", "--device", "phone", "--field", "mood=1", "--field", "date=now",
        ])
        #expect(after.status == 0, "\(after.standardError)")
        for file in try TortureKillTests.databaseFiles(cli.home) {
            let check = Process()
            check.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            check.arguments = [file, "PRAGMA integrity_check"]
            let output = Pipe()
            check.standardOutput = output
            if (try? check.run()) != nil {
                check.waitUntilExit()
                let result = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                #expect(result.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(file): \(result)")
            }
        }
    }

    @Test(
        "sync on a disk filled to every level: transient (75, the disk is full), never a damaged container",
        .enabled(if: canMount, "needs permission to mount a tmpfs"))
    func syncOnAFullDiskIsTransient() throws {
        var transient = 0
        // How much space is left when the first sync runs: from none to enough for everything, in steps that land
        // the failure in every write of the cycle (the stores' -shm, the new container file, its log, the records).
        for room in stride(from: 0, through: 240_000, by: 16_000) {
            let disk = try #require(Self.mountSmallDisk(megabytes: 2))
            defer { Self.unmount(disk) }
            let cli = CLIRunner(home: disk + "/world")
            try cli.ok("init")
            for device in ["A", "B"] {
                try cli.ok("device", "add", device, "--account", "alice", "--sync", "on")
                try cli.ok("launch", "--device", device)
            }
            let name = try cli.addCheckIn(mood: 3, on: "A").standardOutput
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let filler = disk + "/filler"
            Self.fill(disk, leaving: room, with: filler)
            for device in ["A", "B"] {
                let sync = try cli.run(["sync", "now", "--device", device])
                let said = sync.standardOutput + sync.standardError
                #expect([0, 75].contains(sync.status), "room \(room), \(device): \(said)")
                #expect(!said.contains("containerUnusable") && !said.contains("Repair"), "room \(room): \(said)")
                if sync.status == 75 {
                    transient += 1
                    #expect(said.contains("the disk is full"), "room \(room), \(device): \(said)")
                }
                let status = try cli.run(["sync", "status", "--device", device, "--json"])
                if status.status == 0 {
                    #expect(status.json["reason"] is NSNull, "room \(room): a full disk paused sync: \(status.json)")
                }
            }
            // Space comes back: everything syncs, nothing was lost.
            try FileManager.default.removeItem(atPath: filler)
            try cli.syncNow("--device", "A")
            try cli.syncNow("--device", "B")
            let container = try cli.ok("cloud", "record", "list", "--account", "alice", "--json").standardOutput
            #expect(container.contains(name), "room \(room): the record never reached the container")
            #expect(try cli.ok("sync", "status", "--device", "A", "--json").json["state"] as? String == "on")
        }
        #expect(transient > 0, "the disk was full at some level")
        print("disk-full sync torture: \(transient) transient failure(s) at 16 levels of free space")
    }

    /// Fills the disk at `disk` with the file `filler`, leaving about `room` bytes free.
    static func fill(_ disk: String, leaving room: Int, with filler: String) {
        var info = statvfs()
        guard statvfs(disk, &info) == 0 else { return }
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        let size = max(0, free - room)
        _ = FileManager.default.createFile(atPath: filler, contents: Data(repeating: 0, count: size))
    }
}
