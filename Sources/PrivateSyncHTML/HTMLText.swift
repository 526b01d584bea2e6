/// Self-contained HTML pages (the world page, the timeline): escaping and the page's frame.
///
/// A page holds its CSS and SVG inline and names no URL: no link, no script, no image, no font, nothing a browser
/// would fetch. Every value placed in a page passes through ``escape(_:)``.
public enum HTMLText {
    /// Escapes text for an HTML element's content or a double- or single-quoted attribute: `&`, `<`, `>`, `"` and
    /// `'` become character references, and NUL and the other C0 controls but tab, newline and carriage return
    /// (which HTML does not allow) become U+FFFD.
    ///
    /// - Parameter text: Any text.
    /// - Returns: The text, safe to place anywhere in a page's body.
    public static func escape(_ text: some StringProtocol) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A whole page: the doctype, the title, the inline style, and the body.
    ///
    /// - Parameters:
    ///   - title: The page's title (escaped here).
    ///   - style: The page's CSS (trusted: written by the package, never from a value).
    ///   - body: The body's HTML (every value in it already escaped).
    /// - Returns: The page.
    public static func document(title: String, style: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>\(escape(title))</title>
        <style>
        \(style)
        </style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    /// A number with its unit's digits only, for SVG coordinates: at most one decimal, no exponent.
    ///
    /// - Parameter value: A coordinate.
    /// - Returns: Its text.
    public static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let tenths = (value * 10).rounded()
        let whole = Int(tenths) / 10
        let fraction = abs(Int(tenths)) % 10
        if fraction == 0 { return String(whole) }
        return (tenths < 0 && whole == 0 ? "-" : "") + "\(whole).\(fraction)"
    }
}
