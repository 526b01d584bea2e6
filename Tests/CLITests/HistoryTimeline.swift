import Foundation

/// A many-processes torture run's history as a timeline page, written when the checker finds a problem: one row per
/// client, one bar per command from its start to its end on the history's clock (a counter every start and end
/// advances, so bars that overlap ran at once), coloured by how the command ended, with its command line and answer
/// on hover; the problems found and the replay command on top. What `privatesync simulate --timeline` is for a
/// simulation, this is for a run of real processes.
enum HistoryTimeline {
    /// Horizontal pixels per tick of the history's clock.
    static let tickWidth = 8
    /// Height of a client's row.
    static let rowHeight = 22

    /// The page, as HTML with an inline SVG and no script.
    ///
    /// - Parameters:
    ///   - title: What ran (the workload, its seed and scale).
    ///   - replay: The command that runs it again.
    ///   - problems: What the checker found.
    ///   - history: Every command of the run.
    /// - Returns: The page.
    static func page(
        title: String, replay: String, problems: [String], history: [TortureConcurrencyTests.Operation]
    ) -> String {
        let clients = (history.map(\.client).max() ?? -1) + 1
        let ticks = (history.map(\.ended).max() ?? 0) + 1
        let width = 80 + ticks * tickWidth
        let height = 20 + clients * rowHeight
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\">"
        for client in 0..<clients {
            svg += "<text x=\"4\" y=\"\(20 + client * rowHeight + 15)\" font-size=\"12\">client \(client)</text>"
        }
        for operation in history {
            let x = 80 + operation.started * tickWidth
            let barWidth = max(2, (operation.ended - operation.started) * tickWidth - 2)
            let y = 20 + operation.client * rowHeight
            let hover =
                "\(operation.line)\n\(operation.output.prefix(400))".trimmingCharacters(in: .whitespacesAndNewlines)
            svg +=
                "<rect class=\"\(outcome(of: operation))\" x=\"\(x)\" y=\"\(y + 2)\" width=\"\(barWidth)\" "
                + "height=\"\(rowHeight - 4)\"><title>\(escaped(hover))</title></rect>"
        }
        svg += "</svg>"
        let problemList = problems.map { "<li>\(escaped($0))</li>" }.joined()
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escaped(title))</title>
            <style>
            body { font-family: -apple-system, system-ui, sans-serif; margin: 1.5em; }
            .ok { fill: #3a7d44; } .waited { fill: #6c8ebf; } .killed { fill: #e69138; } .failed { fill: #cc0000; }
            code { background: #f3f3f3; padding: 0.2em 0.4em; }
            </style></head><body>
            <h1>\(escaped(title))</h1>
            <p>Replay: <code>\(escaped(replay))</code></p>
            <h2>\(problems.count) problem(s)</h2><ul>\(problemList)</ul>
            <p>\(history.count) command(s). Green: answered 0; blue: a documented wait or pause (69, 75, 78); orange:
            killed by SIGKILL before it answered; red: any other answer. Hover a bar for the command and its answer.</p>
            \(svg)
            </body></html>

            """
    }

    /// Writes the page into `$PRIVATESYNC_TORTURE_TIMELINE_DIR`, else the temporary folder.
    ///
    /// - Returns: The page's path, or `nil` when it could not be written.
    static func write(
        title: String, replay: String, problems: [String], history: [TortureConcurrencyTests.Operation]
    ) -> String? {
        let folder =
            ProcessInfo.processInfo.environment["PRIVATESYNC_TORTURE_TIMELINE_DIR"]
            ?? FileManager.default.temporaryDirectory.path
        let name = title.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        let path = "\(folder)/privatesync-torture-\(String(name)).html"
        let text = page(title: title, replay: replay, problems: problems, history: history)
        return (try? Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)) == nil ? nil : path
    }

    /// The class of a command's bar.
    static func outcome(of operation: TortureConcurrencyTests.Operation) -> String {
        if operation.wasKilled { return "killed" }
        if operation.status == 0 { return "ok" }
        if operation.command == "sync now" && CLIRunner.syncNowOutcomes.contains(operation.status) { return "waited" }
        return "failed"
    }

    /// `text` with `&`, `<`, `>` and `"` escaped for HTML.
    static func escaped(_ text: some StringProtocol) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
