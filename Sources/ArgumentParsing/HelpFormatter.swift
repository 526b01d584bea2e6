/// Writes a command's help and usage line, as swift-argument-parser lays them out.
package struct HelpFormatter {
    /// The parser whose commands are described.
    package let parser: ArgumentParser

    /// Creates a formatter.
    package init(parser: ArgumentParser) {
        self.parser = parser
    }

    /// The usage line of the command at `path`.
    package func usage(_ path: [String]) -> String {
        guard let command = parser.command(at: path) else { return parser.displayName(path) }
        var parts = [parser.displayName(path)]
        if !command.configuration.subcommands.isEmpty {
            parts.append(command.configuration.runsWithoutSubcommand ? "[<command>]" : "<command>")
        }
        for argument in command.arguments {
            parts.append(argument.isVariadic ? "\(argument.valueName)..." : argument.valueName)
        }
        for option in command.options {
            let text = "--\(option.name) \(option.allowedValues?.joined(separator: "|") ?? option.valueName)"
            let shown = option.isRepeatable ? "\(text) ..." : text
            parts.append(option.isRequired ? shown : "[\(shown)]")
        }
        for flag in command.flags { parts.append("[--\(flag.name)]") }
        return parts.joined(separator: " ")
    }

    /// The full help of the command at `path`.
    package func help(_ path: [String]) -> String {
        guard let command = parser.command(at: path) else { return usage(path) }
        let configuration = command.configuration
        var lines = ["OVERVIEW: \(configuration.abstract)"]
        if let discussion = configuration.discussion { lines += ["", discussion] }
        lines += ["", "USAGE: \(usage(path))"]
        if !command.arguments.isEmpty {
            lines += ["", "ARGUMENTS:"]
            for argument in command.arguments { lines.append(row(argument.valueName, argument.help)) }
        }
        lines += ["", "OPTIONS:"]
        for option in command.options {
            var values = ""
            if let allowed = option.allowedValues, allowed.joined(separator: "|") != option.valueName {
                values = " (\(allowed.joined(separator: ", ")))"
            }
            lines.append(row("--\(option.name) \(option.valueName)", option.help + values))
        }
        for flag in command.flags { lines.append(row("--\(flag.name)", flag.help)) }
        for option in parser.globalOptions { lines.append(row("--\(option.name) \(option.valueName)", option.help)) }
        lines.append(row("-h, --help", "Show help information."))
        if !configuration.subcommands.isEmpty {
            lines += ["", "COMMANDS:"]
            for sub in configuration.subcommands.map({ $0.configuration }) {
                lines.append(row(sub.commandName, sub.abstract))
            }
            lines += ["", "  See '\(parser.displayName(path)) <command> --help' for detailed help."]
        }
        if !configuration.examples.isEmpty {
            lines += ["", "EXAMPLES:"]
            for example in configuration.examples { lines.append("  " + example) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func row(_ left: String, _ right: String) -> String {
        let padded = left.count < 26 ? left + String(repeating: " ", count: 26 - left.count) : left + "  "
        return "  " + padded + right
    }
}
