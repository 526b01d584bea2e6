import SimulatedWorld

/// The timeline page of one run (`privatesync simulate --seed N --timeline FILE.html`), in the spirit of Jepsen's
/// `timeline.html`: one lane per device, a mark for each thing that happened, a status band under each lane, and
/// the broken invariant marked where it broke. One self-contained HTML file: inline SVG and CSS, no script, no URL.
///
/// The horizontal axis runs over the run's steps in order, one column per step (labelled with its simulated time),
/// so that steps close in time stay apart; several events of one device in one step share its column.
public enum TimelinePage {
    /// The width of one step's column, in pixels.
    static let column = 14.0
    /// Where the lanes start (the device names are on the left).
    static let left = 84.0
    /// The height of one lane: its marks, then its status band.
    static let laneHeight = 46.0

    /// Renders the page of a run.
    ///
    /// - Parameters:
    ///   - result: The run; its ``SimulationResult/timeline`` is drawn.
    ///   - replay: The command that replays the seed, shown on the page.
    /// - Returns: The page's HTML; every value in it is escaped.
    public static func render(_ result: SimulationResult, replay: String) -> String {
        var events = result.timeline
        // A step in which nothing happened (no device was due, a sign-out with no one signed in) still gets its
        // column and a mark saying so.
        let lastStep = max(result.steps, events.map(\.step).max() ?? 0)
        let busy = Set(events.filter(isMark).map(\.step))
        for step in 1..<max(lastStep + 1, 1) where !busy.contains(step) {
            let time = events.last { $0.step <= step }?.time ?? 0
            let index = events.firstIndex { $0.step > step } ?? events.endIndex
            events.insert(
                TimelineEvent(
                    step: step, time: time, device: nil, kind: .idle, summary: "nothing happened in this step"),
                at: index)
        }
        let steps = Array(Set(events.map(\.step))).sorted()
        let columnOf = Dictionary(uniqueKeysWithValues: steps.enumerated().map { ($1, $0) })
        var lanes: [String] = []
        for event in events where event.device != nil && !lanes.contains(event.device!) {
            lanes.append(event.device!)
        }
        let hasWorldLane = events.contains { $0.device == nil && isMark($0) }
        let laneNames = (hasWorldLane ? ["world"] : []) + lanes
        let top = 34.0
        let width = left + Double(max(steps.count, 1)) * column + 140
        let height = top + Double(laneNames.count) * laneHeight + 10
        func x(_ step: Int) -> Double { left + Double(columnOf[step] ?? 0) * column }
        func laneY(_ device: String?) -> Double {
            let index = laneNames.firstIndex(of: device ?? "world") ?? 0
            return top + Double(index) * laneHeight
        }
        let c = HTMLText.coordinate
        let e: (String) -> String = { HTMLText.escape($0) }

        var svg = ""
        svg += "<svg class=\"timeline\" width=\"\(c(width))\" height=\"\(c(height))\" "
        svg += "viewBox=\"0 0 \(c(width)) \(c(height))\" role=\"img\" aria-label=\"timeline of seed \(result.seed)\">\n"
        // The axis: a tick every ten columns, with the step and its simulated time.
        let firstTime = Dictionary(events.map { ($0.step, $0.time) }, uniquingKeysWith: { first, _ in first })
        for (index, step) in steps.enumerated() where index % 10 == 0 {
            let tickX = left + Double(index) * column
            svg +=
                "<line class=\"tick\" x1=\"\(c(tickX))\" y1=\"\(c(top - 6))\" x2=\"\(c(tickX))\" y2=\"\(c(height - 10))\"/>"
            svg += "<text class=\"axis\" x=\"\(c(tickX + 2))\" y=\"12\">\(step)</text>"
            svg += "<text class=\"axis time\" x=\"\(c(tickX + 2))\" y=\"24\">+\(Int(firstTime[step] ?? 0))s</text>\n"
        }
        for (index, name) in laneNames.enumerated() {
            let y = top + Double(index) * laneHeight
            let kind = name == "world" && hasWorldLane && index == 0 ? "world" : "device"
            svg += "<g class=\"lane\" data-lane=\"\(e(name))\" data-kind=\"\(kind)\">"
            svg += "<rect class=\"lane-bg\" x=\"\(c(left))\" y=\"\(c(y))\" width=\"\(c(width - left - 140))\" "
            svg += "height=\"\(c(laneHeight - 6))\"/>"
            svg += "<text class=\"lane-name\" x=\"6\" y=\"\(c(y + 18))\">\(e(name))</text></g>\n"
        }
        // Status bands: each sample holds until the device's next sample.
        var samples: [String: [TimelineEvent]] = [:]
        for event in events where event.kind == .status && event.device != nil {
            samples[event.device!, default: []].append(event)
        }
        for device in lanes {
            let list = samples[device] ?? []
            for (index, sample) in list.enumerated() {
                guard let status = sample.status else { continue }
                let start = x(sample.step)
                let end = index + 1 < list.count ? x(list[index + 1].step) : left + Double(steps.count) * column
                guard end > start else { continue }
                let y = laneY(device) + 26
                var title = "\(device), step \(sample.step) (+\(Int(sample.time))s): \(status.description)"
                if let reason = status.reason { title += "; reason: \(reason)" }
                title += "; \(status.pendingChanges) pending"
                svg +=
                    "<rect class=\"band \(e(status.band))\" data-device=\"\(e(device))\" data-step=\"\(sample.step)\" "
                svg += "x=\"\(c(start))\" y=\"\(c(y))\" width=\"\(c(end - start))\" height=\"10\">"
                svg += "<title>\(e(title))</title></rect>\n"
            }
        }
        // Marks: the events of one lane in one step share its column.
        var slots: [String: [TimelineEvent]] = [:]
        for event in events where event.kind != .status && event.kind != .failure {
            slots["\(event.device ?? "world")#\(event.step)", default: []].append(event)
        }
        for event in events where event.kind != .status && event.kind != .failure {
            let key = "\(event.device ?? "world")#\(event.step)"
            let group = slots[key]!
            let position = group.firstIndex(of: event) ?? 0
            let cx = x(event.step) + column * (Double(position) + 0.5) / Double(group.count)
            let cy = laneY(event.device) + 12
            let lane = event.device ?? "world"
            var title = "step \(event.step) (+\(Int(event.time))s) \(lane): \(event.summary)"
            for request in event.requests { title += "\n  \(request)" }
            svg += "<g class=\"mark k-\(event.kind.rawValue)\" data-step=\"\(event.step)\" "
            svg += "data-kind=\"\(event.kind.rawValue)\" data-lane=\"\(e(lane))\"><title>\(e(title))</title>"
            svg += shape(event.kind, x: cx, y: cy, size: min(5, column / Double(group.count) / 2 + 1))
            svg += "</g>\n"
        }
        // The broken invariant, across every lane, where it broke.
        for event in events where event.kind == .failure {
            let fx = x(event.step) + column / 2
            svg += "<g class=\"failure\" data-step=\"\(event.step)\"><title>\(e(event.summary))</title>"
            svg += "<line x1=\"\(c(fx))\" y1=\"\(c(top - 4))\" x2=\"\(c(fx))\" y2=\"\(c(height - 8))\"/>"
            svg += "<text x=\"\(c(fx + 4))\" y=\"\(c(top - 4))\">\(e(failureLabel(result)))</text></g>\n"
        }
        svg += "</svg>\n"

        var body = "<h1>Seed \(result.seed)</h1>\n"
        body += "<p class=\"meta\">\(result.devices) device(s), \(result.steps) steps, "
        body += "\(Int(result.simulatedSeconds)) simulated seconds, \(events.filter(isMark).count) events. "
        body += "Replay: <code>\(e(replay))</code></p>\n"
        if let failure = result.failure {
            body += "<div class=\"verdict broken\" data-invariant=\"\(failure.kind.number)\">"
            let verdict =
                failure.invariant.map { "Broke invariant \($0)" }
                ?? "Could not go on (a setup or I/O failure, not an invariant)"
            body += "\(e(verdict)) at step \(failure.step): "
            body += "<span class=\"message\">\(e(failure.message))</span></div>\n"
        } else {
            body += "<div class=\"verdict held\">Every invariant held.</div>\n"
        }
        body += legend()
        body += "<div class=\"scroll\">\n\(svg)</div>\n"
        body += eventTable(events)
        return HTMLText.document(title: "PrivateSync seed \(result.seed) timeline", style: style, body: body)
    }

    /// Whether an event is drawn as a mark (status samples are bands; the failure is its own mark).
    static func isMark(_ event: TimelineEvent) -> Bool {
        event.kind != .status && event.kind != .failure
    }

    private static func failureLabel(_ result: SimulationResult) -> String {
        guard let failure = result.failure else { return "invariant broken" }
        guard let invariant = failure.invariant else { return "the run could not go on" }
        return "invariant \(invariant.rawValue) broken"
    }

    /// The shape of a mark: circles for writes, a square for a sync, a triangle for a fault, a cross for a crash,
    /// diamonds for the app's life, a square for the switch.
    private static func shape(_ kind: TimelineEvent.Kind, x: Double, y: Double, size: Double) -> String {
        let c = HTMLText.coordinate
        switch kind {
        case .write, .edit, .delete, .setup, .world, .idle:
            return "<circle cx=\"\(c(x))\" cy=\"\(c(y))\" r=\"\(c(size))\"/>"
        case .sync, .toggle:
            return
                "<rect x=\"\(c(x - size))\" y=\"\(c(y - size))\" width=\"\(c(2 * size))\" height=\"\(c(2 * size))\"/>"
        case .fault:
            return
                "<polygon points=\"\(c(x)),\(c(y - size - 1)) \(c(x + size + 1)),\(c(y + size)) \(c(x - size - 1)),\(c(y + size))\"/>"
        case .crash:
            return
                "<path d=\"M\(c(x - size)) \(c(y - size))L\(c(x + size)) \(c(y + size))M\(c(x + size)) \(c(y - size))L\(c(x - size)) \(c(y + size))\"/>"
        case .launch, .install, .account, .deleteAppData, .status, .failure:
            return
                "<polygon points=\"\(c(x)),\(c(y - size - 1)) \(c(x + size + 1)),\(c(y)) \(c(x)),\(c(y + size + 1)) \(c(x - size - 1)),\(c(y))\"/>"
        }
    }

    private static func legend() -> String {
        let kinds: [(TimelineEvent.Kind, String)] = [
            (.write, "write"), (.edit, "edit"), (.delete, "delete"), (.sync, "sync cycle"), (.fault, "fault struck"),
            (.crash, "crash"), (.launch, "launch"), (.install, "reinstall, upgrade"), (.toggle, "switch"),
            (.account, "account"), (.deleteAppData, "iCloud data deleted"), (.world, "server, heal"),
            (.idle, "nothing happened"),
        ]
        var html = "<ul class=\"legend\">"
        for (kind, label) in kinds {
            html += "<li><svg width=\"14\" height=\"14\" viewBox=\"0 0 14 14\"><g class=\"k-\(kind.rawValue)\">"
            html += shape(kind, x: 7, y: 7, size: 4) + "</g></svg>\(label)</li>"
        }
        for (band, label) in [
            ("off", "off"), ("uptodate", "on, up to date"), ("syncing", "on, syncing"), ("waiting", "on, waiting"),
            ("notyetsynced", "on, first sync not run"), ("paused", "paused"),
        ] {
            html += "<li><svg width=\"18\" height=\"10\" viewBox=\"0 0 18 10\"><rect class=\"\(band)\" "
            html += "width=\"18\" height=\"10\"/></svg>\(label)</li>"
        }
        return html + "</ul>\n"
    }

    private static func eventTable(_ events: [TimelineEvent]) -> String {
        let e: (String) -> String = { HTMLText.escape($0) }
        var html = "<details><summary>Every event</summary><table class=\"events\"><thead><tr><th>Step</th>"
        html += "<th>Time</th><th>Lane</th><th>Kind</th><th>What happened</th></tr></thead><tbody>\n"
        for event in events where event.kind != .status {
            html += "<tr class=\"k-\(event.kind.rawValue)\"><td>\(event.step)</td><td>+\(Int(event.time))s</td>"
            html += "<td>\(e(event.device ?? "world"))</td><td>\(event.kind.rawValue)</td><td>\(e(event.summary))"
            if !event.requests.isEmpty {
                html += "<ol>" + event.requests.map { "<li>\(e($0))</li>" }.joined() + "</ol>"
            }
            html += "</td></tr>\n"
        }
        return html + "</tbody></table></details>\n"
    }

    private static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 20px; color: #212121; background: #fff; }
        h1 { font-size: 20px; margin: 0 0 4px; }
        .meta { color: #555; margin: 0 0 8px; }
        code { font: 13px ui-monospace, monospace; background: #f3f3f3; padding: 1px 4px; }
        .verdict { padding: 8px 12px; border-radius: 4px; margin: 8px 0; }
        .verdict.broken { background: #ffebee; border-left: 4px solid #c62828; }
        .verdict.held { background: #e8f5e9; border-left: 4px solid #2e7d32; }
        .legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; }
        .legend li { display: flex; align-items: center; gap: 4px; }
        .scroll { overflow-x: auto; border: 1px solid #e0e0e0; }
        .lane-bg { fill: #fafafa; }
        .lane-name { font-size: 13px; font-weight: 600; fill: #333; }
        .axis { font-size: 10px; fill: #666; }
        .tick { stroke: #eee; }
        .mark { stroke: #fff; stroke-width: 0.5; }
        .k-write { fill: #2e7d32; } .k-edit { fill: #00897b; } .k-delete { fill: #5d4037; }
        .k-sync { fill: #1565c0; } .k-fault { fill: #f9a825; }
        .k-crash { stroke: #b71c1c; stroke-width: 2.5; fill: none; }
        .k-launch { fill: #7b1fa2; } .k-install { fill: #455a64; } .k-toggle { fill: #ad1457; }
        .k-account { fill: #0097a7; } .k-deleteAppData { fill: #d84315; } .k-world, .k-setup { fill: #9e9e9e; }
        .k-idle { fill: #e0e0e0; }
        .failure line { stroke: #c62828; stroke-width: 2; stroke-dasharray: 4 2; }
        .failure text { font-size: 12px; font-weight: 700; fill: #c62828; }
        table.events { border-collapse: collapse; font-size: 12px; margin-top: 8px; }
        table.events td, table.events th { border-bottom: 1px solid #eee; padding: 2px 8px 2px 0; text-align: left;
            vertical-align: top; }
        table.events ol { margin: 2px 0; padding-left: 18px; color: #555; }
        tr.k-failure td { color: #c62828; font-weight: 600; }
        """ + "\n" + HTMLText.statusStyle
}
