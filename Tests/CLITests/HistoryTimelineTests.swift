import Foundation
import Testing

@Suite("Torture: the timeline page of a failing many-processes run")
struct HistoryTimelineTests {
    typealias Operation = TortureConcurrencyTests.Operation

    static let history = [
        Operation(
            client: 0, arguments: ["record", "add", "Note", "--field", "title=<b>"], status: 0, output: "n1\n",
            error: "", started: 1, ended: 4),
        Operation(
            client: 1, arguments: ["sync", "now", "--device", "A"], status: 75, output: "", error: "busy",
            started: 2, ended: 3),
        Operation(
            client: 2, arguments: ["record", "delete", "n1", "--device", "A"], status: Operation.killedStatus,
            output: "", error: "", started: 5, ended: 6),
        Operation(
            client: 1, arguments: ["record", "list", "--device", "A"], status: 74, output: "", error: "damaged",
            started: 7, ended: 8),
    ]

    @Test("the page draws one bar per command, coloured by its outcome, with the problems and the replay, escaped")
    func pageShowsEveryCommand() {
        let page = HistoryTimeline.page(
            title: "mix & match", replay: "PRIVATESYNC_TORTURE_SEED=3 swift test", problems: ["A lost n1 <here>"],
            history: Self.history)
        #expect(page.components(separatedBy: "<rect ").count - 1 == Self.history.count)
        for outcome in ["ok", "waited", "killed", "failed"] {
            #expect(page.contains("<rect class=\"\(outcome)\""), "no \(outcome) bar")
        }
        #expect(page.contains("mix &amp; match"))
        #expect(page.contains("A lost n1 &lt;here&gt;"))
        #expect(page.contains("title=&lt;b&gt;"))
        #expect(!page.contains("<b>"), "a command's text reached the page unescaped")
        #expect(page.contains("PRIVATESYNC_TORTURE_SEED=3 swift test"))
    }

    @Test("a bar spans its command's start to its end on the history's clock, in its client's row")
    func barsFollowTheClock() {
        let page = HistoryTimeline.page(title: "t", replay: "r", problems: [], history: Self.history)
        let tick = HistoryTimeline.tickWidth
        // The first command: client 0, from tick 1 to tick 4.
        #expect(page.contains("x=\"\(80 + tick)\" y=\"22\" width=\"\(3 * tick - 2)\""))
        // The second: client 1's row, one tick long.
        #expect(page.contains("x=\"\(80 + 2 * tick)\" y=\"\(22 + HistoryTimeline.rowHeight)\" width=\"\(tick - 2)\""))
    }
}
