import Foundation
import PrivateCloud
import Testing

@testable import Simulator

@Suite("Simulator: the timeline log")
struct TimelineTests {
    @Test("a seed's timeline replays exactly, and the trace digest is the trace's alone")
    func timelineIsDeterministicAndOutsideTheDigest() async {
        let first = await Simulation.run(SimulationOptions(seed: 11, steps: 80, keepFullTrace: true))
        let second = await Simulation.run(SimulationOptions(seed: 11, steps: 80, keepFullTrace: true))
        #expect(first.timeline == second.timeline)
        #expect(!first.timeline.isEmpty)
        let digest = first.trace.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { StableHash.fnv1a64($1 + "\n", seed: $0) }
        #expect(digest == first.traceDigest, "only the trace's lines feed the digest")
    }

    @Test("events carry their step, device and kind; syncs carry their requests; faults come from those requests")
    func eventsDescribeTheRun() async {
        let run = await Simulation.run(SimulationOptions(seed: 4, devices: 3, steps: 120))
        let devices = Set(run.timeline.compactMap(\.device))
        #expect(devices.count == 3)
        #expect(run.timeline.map(\.step) == run.timeline.map(\.step).sorted(), "in step order")
        #expect(run.timeline.map(\.time) == run.timeline.map(\.time).sorted(), "in time order")
        let syncs = run.timeline.filter { $0.kind == .sync }
        #expect(!syncs.isEmpty)
        let faultyRequests = syncs.flatMap(\.requests).filter { $0.contains("[fault: ") }.count
        #expect(run.timeline.filter { $0.kind == .fault }.count == faultyRequests)
        #expect(run.timeline.contains { $0.kind == .write })
        #expect(run.timeline.contains { $0.kind == .launch })
        #expect(!run.timeline.contains { $0.kind == .failure }, "no invariant broke")
    }

    @Test("a status is sampled when it changes, not at every step")
    func statusSamplesOnlyOnChange() async {
        let run = await Simulation.run(SimulationOptions(seed: 9, steps: 100))
        var last: [String: TimelineEvent.Status] = [:]
        for event in run.timeline where event.kind == .status {
            let device = event.device ?? ""
            #expect(last[device] != event.status, "a repeated sample at step \(event.step)")
            last[device] = event.status
        }
        #expect(!last.isEmpty)
    }

    @Test("a page of a failing run names the invariant, marks the failure, and escapes every value")
    func pageOfAFailure() {
        var result = SimulationResult(seed: 7, devices: 1)
        result.steps = 2
        result.timeline = [
            TimelineEvent(step: 0, time: 0, device: "phone", kind: .setup, summary: "installed"),
            TimelineEvent(step: 1, time: 10, device: "phone", kind: .write, summary: "add <b>&\"'"),
            TimelineEvent(step: 2, time: 20, device: nil, kind: .failure, summary: "invariant broken: <x>"),
        ]
        result.failure = SimulationFailure(.invariant(.honestStatus), message: "phone: <lies> & more", step: 2)
        let html = TimelinePage.render(result, replay: "privatesync simulate --seed 7 --trace")
        #expect(html.contains("phone: &lt;lies&gt; &amp; more"))
        #expect(html.contains("add &lt;b&gt;&amp;&quot;&#39;"))
        #expect(!html.contains("<lies>") && !html.contains("<b>"))
        #expect(html.contains("<g class=\"failure\" data-step=\"2\">"))
        #expect(html.contains("data-kind=\"idle\""), "step 2 had no mark of its own: it is drawn idle")
    }

    @Test("a run that could not go on is its own kind of failure, shown as such, never as invariant 3")
    func runThatCouldNotGoOn() {
        var result = SimulationResult(seed: 9, devices: 1)
        result.steps = 1
        result.failure = SimulationFailure(.couldNotRun, message: "phone: a write failed: the disk is full", step: 1)
        #expect(result.failure?.invariant == nil)
        #expect(result.failure?.kind.number == 0)
        #expect(result.failure?.kind.verdict.hasPrefix("could not go on") == true)
        let html = TimelinePage.render(result, replay: "privatesync simulate --seed 9 --trace")
        #expect(html.contains("data-invariant=\"0\""))
        #expect(html.contains("Could not go on (a setup or I/O failure, not an invariant) at step 1"))
        #expect(!html.contains("Broke invariant"))
        let reported = SweepReport.Failure(
            seed: 9, invariant: 0, invariantName: SimulationFailure.Kind.couldNotRun.description, message: "m", step: 1,
            lastSteps: [], replay: "r")
        #expect(reported.verdict.hasPrefix("could not go on"))
        let broken = SweepReport.Failure(
            seed: 9, invariant: 3, invariantName: Invariant.noAcknowledgedWriteLost.description, message: "m", step: 1,
            lastSteps: [], replay: "r")
        #expect(broken.verdict == "broke invariant 3 (no acknowledged write lost)")
    }
}
