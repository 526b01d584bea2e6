import Foundation
import Testing

/// docs/cookbook.md, parsed: the setup every scenario starts from, and each scenario's commands with the output and
/// exit code the page shows.
///
/// The page's syntax (docs/cookbook.md, "Reading a transcript"):
/// - a `## Setup` section's ```` ```console ```` block runs first in every scenario's fresh world;
/// - each `## N. Title` section holds one ```` ```console ```` block: `$ privatesync ARGS` lines, each followed by
///   the exact lines it prints (standard output, then standard error), then `[exit N]` when it exits with N ≠ 0;
/// - in an output line, `<name:LABEL>` binds the word it meets (later uses, in commands or outputs, mean that
///   value), `<time>` is a time of day (`HH:MM:SS`), `<any>` is one word, and `…` is any text; a line that is only
///   `…` stands for any number of lines.
struct Cookbook: Sendable {
    /// One command and what it must print.
    struct Step: Sendable {
        /// The arguments after `privatesync`, as the page spells them (placeholders not yet substituted).
        let arguments: [String]
        /// The lines it prints, as the page spells them.
        let output: [String]
        /// The exit code.
        let status: Int32
        /// The page's line of the command, for messages.
        let line: Int
    }

    /// A `## N. Title` section.
    struct Scenario: Sendable, CustomTestStringConvertible {
        let title: String
        let steps: [Step]
        var testDescription: String { title }
    }

    /// Where the page is.
    static let path: String = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<2 { folder = folder.deletingLastPathComponent() }
        return folder.appendingPathComponent("docs/cookbook.md").path
    }()

    let setup: [Step]
    let scenarios: [Scenario]

    /// Reads and parses the page; an empty cookbook when it cannot be read (the test then fails on the count).
    static func load() -> Cookbook {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return parse(text)
    }

    /// Parses the page's text.
    static func parse(_ text: String) -> Cookbook {
        var setup: [Step] = []
        var scenarios: [Scenario] = []
        var section: String?
        var inBlock = false
        var steps: [Step] = []
        var current: (arguments: [String], output: [String], status: Int32, line: Int)?

        func closeStep() {
            if let step = current {
                steps.append(Step(arguments: step.arguments, output: step.output, status: step.status, line: step.line))
            }
            current = nil
        }
        func closeSection() {
            closeStep()
            if let section, !steps.isEmpty {
                if section == "Setup" {
                    setup = steps
                } else {
                    scenarios.append(Scenario(title: section, steps: steps))
                }
            }
            steps = []
        }

        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            if !inBlock, line.hasPrefix("## ") {
                closeSection()
                let title = String(line.dropFirst(3))
                let isScenario = title.first?.isNumber == true && title.contains(". ")
                section = title == "Setup" || isScenario ? title : nil
                continue
            }
            guard section != nil else { continue }
            if line.hasPrefix("```") {
                if inBlock { closeStep() }
                inBlock = line == "```console" ? true : false
                continue
            }
            guard inBlock else { continue }
            if line.hasPrefix("$ privatesync ") {
                closeStep()
                current = (shellWords(String(line.dropFirst(14))), [], 0, index + 1)
            } else if line.hasPrefix("[exit "), line.hasSuffix("]"), let code = Int32(line.dropFirst(6).dropLast()) {
                current?.status = code
            } else {
                current?.output.append(line)
            }
        }
        closeSection()
        return Cookbook(setup: setup, scenarios: scenarios)
    }

    /// Splits a command line into words as a shell does for plain words, `"..."` and `'...'`.
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
