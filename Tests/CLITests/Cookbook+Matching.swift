import Foundation

extension Cookbook {
    /// The values `<name:LABEL>` placeholders bound so far in a scenario, by label.
    typealias Bindings = [String: String]

    /// A command's words with every bound `<name:LABEL>` replaced by its value.
    ///
    /// - Parameters:
    ///   - arguments: The words as the page spells them.
    ///   - bindings: The values bound so far.
    /// - Returns: The words to run, or `nil` naming a label used before it was bound.
    static func substitute(_ arguments: [String], _ bindings: Bindings) -> Result<[String], PageError> {
        var result: [String] = []
        for argument in arguments {
            var word = argument
            while let open = word.range(of: "<name:"), let close = word[open.upperBound...].firstIndex(of: ">") {
                let label = String(word[open.upperBound..<close])
                guard let value = bindings[label] else {
                    return .failure(PageError("<name:\(label)> used before bound"))
                }
                word.replaceSubrange(open.lowerBound...close, with: value)
            }
            result.append(word)
        }
        return .success(result)
    }

    /// A problem with the page or a mismatch.
    struct PageError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Matches a command's printed lines against the page's, binding new labels.
    ///
    /// - Parameters:
    ///   - expected: The page's lines.
    ///   - actual: The printed lines.
    ///   - bindings: The values bound so far; on success, also those bound here.
    /// - Returns: `nil` on a match, else what differed.
    static func match(_ expected: [String], _ actual: [String], _ bindings: inout Bindings) -> String? {
        if let matched = matchLines(expected[...], actual[...], bindings) {
            bindings = matched
            return nil
        }
        // Report the first line that differs, for a readable failure.
        for (index, line) in expected.enumerated() where line != "…" {
            guard index < actual.count else { return "missing line \(index + 1): \(line)" }
            if matchLine(line, actual[index], bindings) == nil {
                return "line \(index + 1): expected\n  \(line)\ngot\n  \(actual[index])"
            }
        }
        return "expected \(expected.count) line(s), got \(actual.count):\n" + actual.joined(separator: "\n")
    }

    private static func matchLines(
        _ expected: ArraySlice<String>, _ actual: ArraySlice<String>, _ bindings: Bindings
    ) -> Bindings? {
        guard let first = expected.first else { return actual.isEmpty ? bindings : nil }
        if first == "…" {
            for skip in 0...actual.count {
                if let matched = matchLines(expected.dropFirst(), actual.dropFirst(skip), bindings) { return matched }
            }
            return nil
        }
        guard let line = actual.first, let bound = matchLine(first, line, bindings) else { return nil }
        return matchLines(expected.dropFirst(), actual.dropFirst(), bound)
    }

    /// Matches one line, returning the bindings extended with what it bound, or `nil`.
    static func matchLine(_ expected: String, _ actual: String, _ bindings: Bindings) -> Bindings? {
        var pattern = "^"
        var labels: [String] = []
        var literal = ""
        var rest = Substring(expected)
        func flush() {
            pattern += NSRegularExpression.escapedPattern(for: literal)
            literal = ""
        }
        let placeholders: [(String, String)] = [
            ("<time>", "[0-9]{2}:[0-9]{2}:[0-9]{2}"),
            ("<date>", "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]+)?Z"),
            ("<any>", "\\S+"), ("…", ".*"),
        ]
        outer: while let character = rest.first {
            for (token, regex) in placeholders where rest.hasPrefix(token) {
                flush()
                pattern += regex
                rest = rest.dropFirst(token.count)
                continue outer
            }
            if rest.hasPrefix("<name:"), let close = rest.firstIndex(of: ">") {
                let label = String(rest[rest.index(rest.startIndex, offsetBy: 6)..<close])
                if let value = bindings[label] {
                    literal += value
                } else {
                    flush()
                    pattern += labels.contains(label) ? "\\\(labels.firstIndex(of: label)! + 1)" : "([A-Za-z0-9_.@+-]+)"
                    if !labels.contains(label) { labels.append(label) }
                }
                rest = rest[rest.index(after: close)...]
                continue
            }
            literal.append(character)
            rest = rest.dropFirst()
        }
        flush()
        pattern += "$"
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let found = regex.firstMatch(in: actual, range: NSRange(actual.startIndex..., in: actual))
        else { return nil }
        var result = bindings
        for (index, label) in labels.enumerated() {
            guard let range = Range(found.range(at: index + 1), in: actual) else { return nil }
            result[label] = String(actual[range])
        }
        return result
    }
}
