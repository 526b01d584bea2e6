import Foundation
import PrivateSync
import Simulator
import Testing

/// Both pages in a real browser: headless Chromium renders the world page and the timeline of a planted failing
/// seed; the rendered DOM holds what it must, a screenshot is not blank, and the pages reference no URL. Four
/// Chromium launches in all.
@Suite(
    "Browser: the world page and the timeline in Chromium", .serialized,
    .enabled(
        if: Browser.probe.usable,
        "Chromium is missing or cannot start here (Debian's chromium package; .ci/run installs it)"))
struct BrowserTests {
    @Test("the world page renders every device with its stores, status and pending changes, and loads nothing")
    func worldPage() throws {
        let cli = try CLIRunner.world(launching: "phone", "tablet")
        try cli.ok("device", "add", "laptop", "--account", "bob")
        try cli.addCheckIn(mood: 4, on: "phone", "--field", "note=<script>alert(1)</script> & \"quotes\"")
        try cli.ok("sync", "now", "--device", "phone")
        try cli.addCheckIn(mood: 2, on: "tablet")
        let page = URL(fileURLWithPath: cli.home).deletingLastPathComponent().appendingPathComponent("world.html").path
        try cli.ok("inspect", "--html", page)
        let source = try String(contentsOfFile: page, encoding: .utf8)
        #expect(Browser.urlReferences(in: source).isEmpty, "\(Browser.urlReferences(in: source))")
        #expect(!source.contains("<script"))

        let dom = try Browser().dumpDOM(page)
        #expect(Browser.count(#"<section class="device""#, in: dom) == 3, "one section per device")
        for name in ["phone", "tablet", "laptop"] { #expect(dom.contains("data-device=\"\(name)\"")) }
        #expect(Browser.count(#"<section class="account""#, in: dom) == 2, "alice and bob")
        #expect(
            dom.contains(
                "Sync is on: the first sync has not run yet; until it does, nothing is downloaded and 1 change waits to upload."
            ), "the tablet's status sentence (launched, never synced)")
        #expect(dom.contains("never launched"))
        #expect(Browser.count(#"<dd class="pending">1</dd>"#, in: dom) == 1, "the tablet's pending change")
        #expect(dom.contains("User-created store") && dom.contains("No local-only records."))

        let png = page + ".png"
        try Browser().screenshot(page, to: png, width: 900, height: 700)
        let stats = try Browser.pngStats(png)
        #expect(stats.width == 900 && stats.height == 700)
        #expect(stats.colours > 20, "a blank page renders in one colour; this one has \(stats.colours)")
    }

    @Test("the timeline of a planted failing seed: a lane per device, a mark per event and step, the failure mark")
    func timelineOfAPlantedFailure() async throws {
        let hooks = LyingStatus.hooks
        var failing: SimulationResult?
        for seed in UInt64(0)..<40 where failing == nil {
            let run = await Simulation.run(SimulationOptions(seed: seed, steps: 60, hooks: hooks))
            if run.failure != nil { failing = run }
        }
        let run = try #require(failing, "the planted bug was not caught in 40 seeds")
        let failure = try #require(run.failure)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-timeline-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let page = folder.appendingPathComponent("seed-\(run.seed).html").path
        let html = TimelinePage.render(run, replay: "privatesync simulate --seed \(run.seed) --steps 60 --trace")
        try html.write(toFile: page, atomically: true, encoding: .utf8)
        print("timeline of planted seed \(run.seed) (failed at step \(failure.step)): \(page)")
        #expect(Browser.urlReferences(in: html).isEmpty, "\(Browser.urlReferences(in: html))")

        let dom = try Browser().dumpDOM(page)
        #expect(
            Browser.count(#"<g class="lane" data-lane="[a-z]+" data-kind="device">"#, in: dom) == run.devices,
            "one lane per device")
        let marks = run.timeline.filter { $0.kind != .status && $0.kind != .failure }
        #expect(Browser.count(#"<g class="mark k-(?!idle)"#, in: dom) == marks.count, "one mark per event")
        for step in 1...failure.step {
            #expect(Browser.count(#"<g class="mark [^"]*" data-step="\#(step)""#, in: dom) >= 1, "step \(step)")
        }
        #expect(Browser.count(#"<rect class="band "#, in: dom) > 0, "status bands")
        #expect(
            Browser.count(#"<g class="failure" data-step="\#(failure.step)">"#, in: dom) == 1,
            "the failure, marked at step \(failure.step)")
        let escaped = failure.message.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        #expect(dom.contains(escaped), "the failure's message")
        #expect(dom.contains("data-invariant=\"5\""))

        let png = page + ".png"
        try Browser().screenshot(page, to: png, width: 1200, height: 500)
        let stats = try Browser.pngStats(png)
        #expect(stats.width == 1200 && stats.height == 500)
        #expect(stats.colours > 20, "a blank page renders in one colour; this one has \(stats.colours)")
    }
}
