import Foundation
import Simulator
import Testing

@testable import PrivateSyncCLI

/// `simulate --timeline`: the page of one seed, the same bytes on every replay; a sweep writes pages only for
/// failing seeds; a sweep on a pipe draws no progress.
@Suite("CLI: simulate --timeline and progress")
struct CLITimelineTests {
    @Test(
        "--seed S --timeline FILE writes the run's page, a lane per device and a mark in every step, the same on replay"
    )
    func timelineOfOneSeed() throws {
        let cli = CLIRunner.fresh()
        let folder = URL(fileURLWithPath: cli.home).deletingLastPathComponent()
        let first = folder.appendingPathComponent("first.html").path
        let second = folder.appendingPathComponent("second.html").path
        for page in [first, second] {
            let run = try cli.run(
                ["simulate", "--seed", "3", "--steps", "30", "--devices", "3", "--timeline", page], home: false)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardOutput.contains("Timeline of seed 3: \(page)"))
        }
        let html = try String(contentsOfFile: first, encoding: .utf8)
        #expect(try Data(contentsOf: URL(fileURLWithPath: second)) == Data(html.utf8), "a replay writes the same page")
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(Browser.urlReferences(in: html).isEmpty, "\(Browser.urlReferences(in: html))")
        #expect(Browser.count(#"<g class="lane" data-lane="[a-z]+" data-kind="device">"#, in: html) == 3)
        for step in 1...30 {
            #expect(Browser.count(#"<g class="mark [^"]*" data-step="\#(step)""#, in: html) >= 1, "step \(step)")
        }
        #expect(html.contains("Every invariant held."))
        #expect(html.contains("privatesync simulate --seed 3 --devices 3 --steps 30 --trace"))
    }

    @Test("a sweep with --timeline DIR writes the page of each failing seed, with its failure mark and replay")
    func sweepWritesFailingSeedsPages() async throws {
        // The shipped CLI holds no known bug to fail with, so the sweep runs here, in process, with a status source
        // that says on and up to date while sync is paused (invariant 5 catches it the first time a device
        // pauses), and the command's own page writer writes its failures. Five seeds, not one: which seeds fail
        // moves whenever the generator gains a step, and the page is owed to each failing seed, whichever they are.
        let hooks = LyingStatus.hooks
        let summary = await Sweep.run(
            seeds: Sweep.seeds(count: 5, shard: 0, of: 1), template: SimulationOptions(seed: 0, steps: 60, hooks: hooks)
        )
        try #require(!summary.failures.isEmpty, "the lying status breaks some of the five seeds")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-pages-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let configuration = SweepReport.Configuration(
            sweepSeeds: 5, seed: nil, steps: 60, devices: nil, backend: "memory")
        let pages = try SimulateCommand.writeTimelines(
            to: folder.path, oneSeed: false, traced: nil, failures: summary.failures,
            replay: configuration.replay(seed:))
        #expect(pages.map(\.seed) == summary.failures.map(\.seed))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                == summary.failures.map { "seed-\($0.seed).html" }.sorted())
        for run in summary.failures {
            let failure = try #require(run.failure)
            let html = try String(
                contentsOfFile: folder.appendingPathComponent("seed-\(run.seed).html").path, encoding: .utf8)
            #expect(html.contains("<g class=\"failure\" data-step=\"\(failure.step)\">"))
            #expect(html.contains("class=\"verdict broken\""))
            #expect(html.contains("privatesync simulate --seed \(run.seed) --steps 60 --trace"))
        }
    }

    @Test("a passing sweep with --timeline DIR writes no page, and a sweep on a pipe draws no progress")
    func sweepWritesPagesOnlyForFailures() throws {
        let cli = CLIRunner.fresh()
        let folder = URL(fileURLWithPath: cli.home).deletingLastPathComponent().appendingPathComponent("pages")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = try cli.run(["simulate", "--seeds", "3", "--steps", "10", "--timeline", folder.path], home: false)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(run.standardError.isEmpty, "standard error is a pipe here: no progress line")
    }
}

/// The progress line, on a terminal: `script` gives the sweep a pseudo-terminal for standard error.
@Suite("CLI: sweep progress on a terminal")
struct CLIProgressTests {
    @Test(
        "a sweep on a terminal rewrites one line of seeds done, failures, rate and time left",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux's script"))
    func progressOnATerminal() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "\(CLIRunner.binary) simulate --seeds 4 --steps 5", "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("\r\u{1B}[K  4/4 seeds, 0 failing, "), "\(text.debugDescription)")
        #expect(text.contains(" seeds/s, "))
        #expect(text.contains("done in ") || text.contains(" left"))
        #expect(text.contains("Simulated 4 seed(s)"))
    }
}
