import Foundation

/// Headless Chromium (Debian's `chromium` package), as the browser tests drive it: the rendered DOM of a local
/// page, and a screenshot. Every launch gets a fresh profile and the switches that keep Chromium off the network.
struct Browser {
    /// The executable, or why there is none: `$CHROMIUM`, else `chromium` or `chromium-browser` on the PATH.
    static let executable: String? = {
        var candidates: [String] = []
        if let given = ProcessInfo.processInfo.environment["CHROMIUM"] { candidates.append(given) }
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            candidates += ["\(folder)/chromium", "\(folder)/chromium-browser"]
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Whether Chromium runs here: found, and able to render a trivial page (probed once).
    static let probe: (usable: Bool, reason: String) = {
        guard let executable else {
            return (false, "Chromium is not installed (apt-get install chromium; .ci/run installs it)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-probe-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let page = folder.appendingPathComponent("probe.html")
        try? Data("<!DOCTYPE html><p id=\"probe\">ok</p>".utf8).write(to: page)
        guard let dom = try? Browser().dumpDOM(page.path), dom.contains("id=\"probe\"") else {
            return (false, "Chromium at \(executable) cannot render a page here")
        }
        return (true, "")
    }()

    /// What one launch printed.
    struct Output {
        let status: Int32
        let standardOutput: String
    }

    private func launch(_ arguments: [String]) throws -> Output {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("privatesync-chromium-\(UUID())")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable ?? "/usr/bin/chromium")
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
                "--disable-sync", "--hide-scrollbars", "--user-data-dir=\(profile.path)",
            ] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, standardOutput: String(decoding: data, as: UTF8.self))
    }

    /// The DOM of a local page once rendered, serialized.
    func dumpDOM(_ path: String) throws -> String {
        try launch(["--dump-dom", URL(fileURLWithPath: path).absoluteString]).standardOutput
    }

    /// A screenshot of a local page, as a PNG file.
    func screenshot(_ path: String, to png: String, width: Int, height: Int) throws {
        _ = try launch([
            "--screenshot=\(png)", "--window-size=\(width),\(height)", URL(fileURLWithPath: path).absoluteString,
        ])
    }

    /// A PNG's width, height and distinct colours, decoded by `Tests/tools/png_stats.py` (Python's zlib).
    static func pngStats(_ png: String) throws -> (width: Int, height: Int, colours: Int) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/png_stats.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, png]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let numbers = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard numbers.count == 3 else { return (0, 0, 0) }
        return (numbers[0], numbers[1], numbers[2])
    }

    /// Every reference to a URL in a page's source: `http`, `//`, `url(`, `@import`, and `src=` or `href=` to
    /// anything but a `#fragment`.
    static func urlReferences(in html: String) -> [String] {
        let patterns = [#"https?"#, #"//"#, #"url\("#, #"@import"#, #"\b(src|href)\s*=\s*["']?(?!#)"#]
        var found: [String] = []
        for pattern in patterns {
            let expression = try! NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
            for match in expression.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
                let range = Range(match.range, in: html)!
                let start = html.index(range.lowerBound, offsetBy: -20, limitedBy: html.startIndex) ?? html.startIndex
                let end = html.index(range.upperBound, offsetBy: 20, limitedBy: html.endIndex) ?? html.endIndex
                found.append(String(html[start..<end]))
            }
        }
        return found
    }

    /// How many times a regular expression matches.
    static func count(_ pattern: String, in text: String) -> Int {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
    }
}
