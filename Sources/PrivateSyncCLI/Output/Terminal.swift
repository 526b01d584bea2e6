#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the CLI writes: standard output for results, standard error for errors and progress.
///
/// ``line(_:)``, ``error(_:)`` and ``table(_:)`` write one line per call, so any control character in what they are
/// given is escaped (``TextEscaping``) as a last guard: a value a command forgot to escape still cannot start a
/// fake line or reach the terminal raw.
enum Terminal {
    /// Writes a line to standard output.
    static func line(_ text: String = "") {
        write(TextEscaping.escape(text, quotes: false) + "\n", to: 1)
    }

    /// Writes text to standard output without a newline.
    static func text(_ text: String) {
        write(text, to: 1)
    }

    /// Writes text to standard error without a newline (progress lines).
    static func errorText(_ text: String) {
        write(text, to: 2)
    }

    /// Writes a line to standard error.

    static func error(_ text: String) {
        write(TextEscaping.escape(text, quotes: false) + "\n", to: 2)
    }

    /// Whether standard error is a terminal (progress lines are drawn only then).
    static var standardErrorIsTerminal: Bool { isatty(2) == 1 }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes {
                systemWrite(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if written <= 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Encodes `value` as one line of JSON on standard output.
    static func json<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return error("error: cannot encode the JSON output") }
        line(String(decoding: data, as: UTF8.self))
    }

    /// Lays out rows as columns, the first row being the header. Control characters in a cell are escaped first,
    /// so that widths are counted on what is shown.
    static func table(_ rows: [[String]]) {
        let rows = rows.map { $0.map { TextEscaping.escape($0, quotes: false) } }
        guard let header = rows.first else { return }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        for row in rows {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }
            line(cells.joined(separator: "  "))
        }
    }
}

/// `write(2)`, named apart from ``Terminal``'s own.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
