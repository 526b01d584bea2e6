import Foundation
import Testing

/// docs/cookbook.md cannot rot: every scenario's commands run, in a fresh world, with the built `privatesync`, and
/// each printed line and exit code is checked against the page.
@Suite("The cookbook's transcripts")
struct CookbookTests {
    static let cookbook = Cookbook.load()

    @Test("the cookbook holds a setup and at least 25 scenarios, each showing commands")
    func cookbookHasScenarios() {
        #expect(!Self.cookbook.setup.isEmpty)
        #expect(Self.cookbook.scenarios.count >= 25)
        for scenario in Self.cookbook.scenarios {
            #expect(!scenario.steps.isEmpty, "\(scenario.title) shows no command")
        }
    }

    @Test("each scenario's transcript prints what the page shows", arguments: cookbook.scenarios)
    func transcriptMatches(_ scenario: Cookbook.Scenario) throws {
        let cli = CLIRunner.fresh()
        defer {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: cli.home).deletingLastPathComponent().path)
        }
        var bindings: Cookbook.Bindings = [:]
        for step in Self.cookbook.setup + scenario.steps {
            let arguments: [String]
            switch Cookbook.substitute(step.arguments, bindings) {
            case .success(let words): arguments = words
            case .failure(let error):
                Issue.record("docs/cookbook.md:\(step.line): \(error)")
                return
            }
            let run = try cli.run(arguments)
            let printed = lines(run.standardOutput) + lines(run.standardError)
            let command = "docs/cookbook.md:\(step.line): privatesync \(arguments.joined(separator: " "))"
            #expect(run.status == step.status, "\(command) exited \(run.status), not \(step.status)\n\(printed)")
            if let problem = Cookbook.match(step.output, printed, &bindings) {
                Issue.record("\(command): \(problem)")
                return
            }
        }
    }

    @Test("every Swift test the page names exists in CookbookScenarioTests")
    func namedSwiftTestsExist() throws {
        let page = try String(contentsOfFile: Cookbook.path, encoding: .utf8)
        let source = try String(
            contentsOfFile: URL(fileURLWithPath: Cookbook.path).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Tests/PrivateSyncTests/CookbookScenarioTests.swift").path,
            encoding: .utf8)
        let names = page.components(separatedBy: "Swift: `CookbookScenarioTests.").dropFirst().compactMap {
            $0.split(separator: "`").first.map(String.init)
        }
        #expect(names.count == Self.cookbook.scenarios.count)
        for name in names {
            #expect(
                source.contains("func \(name)()"),
                "docs/cookbook.md names CookbookScenarioTests.\(name), which does not exist")
        }
    }

    @Test("the page's placeholders bind, reuse, and match what they say")
    func placeholdersMatch() {
        var bindings: Cookbook.Bindings = [:]
        #expect(Cookbook.match(["<name:R1>"], ["8AB0A8E6-1F2C"], &bindings) == nil)
        #expect(bindings["R1"] == "8AB0A8E6-1F2C")
        #expect(Cookbook.match(["  missing <name:R1>: …"], ["  missing 8AB0A8E6-1F2C: gone"], &bindings) == nil)
        #expect(Cookbook.match(["<name:R1>"], ["other"], &bindings) != nil)
        #expect(Cookbook.match(["at <time> UTC", "…", "end"], ["at 14:17:59 UTC", "a", "b", "end"], &bindings) == nil)
        #expect(Cookbook.match(["at <time> UTC"], ["at soon UTC"], &bindings) != nil)
        #expect(Cookbook.match(["a", "…"], ["a"], &bindings) == nil)
        #expect(Cookbook.match(["a"], ["a", "b"], &bindings) != nil)
        #expect(Cookbook.match(["<any> (<date>)"], ["x (2026-11-29T08:30:00.5Z)"], &bindings) == nil)
        #expect((try? Cookbook.substitute(["--name", "<name:R1>"], bindings).get()) == ["--name", "8AB0A8E6-1F2C"])
        #expect(
            Cookbook.shellWords(#"record add --field "note=slept well" 'a b'"#) == [
                "record", "add", "--field", "note=slept well", "a b",
            ])
    }

    private func lines(_ text: String) -> [String] {
        var result = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if result.last == "" { result.removeLast() }
        return result
    }
}
