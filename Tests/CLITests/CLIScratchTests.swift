import Foundation
import Testing

/// `privatesync simulate` leaves no scratch folder behind: SIGINT and SIGTERM remove the run's own, and each run
/// removes those of earlier runs whose process is gone.
@Suite("CLI: simulate's scratch folders")
struct CLIScratchTests {
    #if os(Linux)
        static let scratch = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : "/tmp"
    #else
        static let scratch = "/tmp"
    #endif

    /// The scratch folders of process `pid`.
    static func folders(of pid: Int32) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? []).filter {
            $0.hasPrefix("privatesync-sim-\(pid)-")
        }
    }

    @Test(
        "a signal during simulate removes its scratch folder, and the process still dies of the signal",
        arguments: [SIGINT, SIGTERM])
    func signalRemovesScratch(signal: Int32) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLIRunner.binary)
        process.arguments = ["simulate", "--seeds", "100000"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait (without sleeping) until the run made a scratch folder; a simulation makes one within milliseconds.
        var seen = false
        for _ in 0..<2_000_000 where process.isRunning {
            if !Self.folders(of: process.processIdentifier).isEmpty {
                seen = true
                break
            }
        }
        #expect(seen, "no scratch folder appeared")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signal)
        #expect(Self.folders(of: process.processIdentifier).isEmpty, "the scratch folder was left behind")
    }

    @Test("a run removes the scratch folders of dead runs, and never those of a live process")
    func staleScratchIsRemoved() throws {
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        let dead = "\(Self.scratch)/privatesync-sim-\(finished.processIdentifier)-stale1"
        let live = "\(Self.scratch)/privatesync-sim-\(getpid())-alive1"
        for folder in [dead, live] {
            try FileManager.default.createDirectory(atPath: folder + "/world", withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(atPath: live) }
        try CLIRunner.fresh().ok("simulate", "--seeds", "1")
        #expect(!FileManager.default.fileExists(atPath: dead), "a dead run's folder was left")
        #expect(FileManager.default.fileExists(atPath: live), "a live process's folder was removed")
    }
}
