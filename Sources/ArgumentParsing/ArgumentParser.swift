/// Parses a command line against a tree of ``ParsableCommand`` types, in the spirit of swift-argument-parser:
/// subcommands, `--option VALUE` and `--option=VALUE`, flags, positional arguments, `--` to end options,
/// `-h`/`--help` anywhere, and precise errors for anything that does not fit.
package struct ArgumentParser {
    /// The root command (the tool itself).
    let root: CommandSpec
    /// Options every command accepts, anywhere on the line (such as `--home`), declared by ``global``.
    let globalOptions: [OptionSpec]
    /// The type that declares the global options.
    package let global: any ParsableArguments.Type

    /// Creates a parser.
    ///
    /// - Parameters:
    ///   - root: The tool's command, whose subcommands are the tool's commands.
    ///   - global: Options every command accepts, anywhere on the line.
    package init(root: any ParsableCommand.Type, global: any ParsableArguments.Type) {
        self.root = CommandSpec(root)
        self.global = global
        self.globalOptions = Declarations(of: global).options
    }

    /// The command at `path`.
    func command(at path: [String]) -> CommandSpec? {
        var command = root
        for name in path {
            guard let next = command.configuration.subcommand(name) else { return nil }
            command = CommandSpec(next)
        }
        return command
    }

    /// Parses the arguments after the tool's name.
    ///
    /// - Parameter arguments: The arguments, without the tool's name.
    /// - Returns: The chosen command and its values.
    /// - Throws: ``UsageError`` naming the first thing that does not fit.
    package func parse(_ arguments: [String]) throws(UsageError) -> ParsedCommand {
        var command = root
        var parsed = ParsedCommand(
            path: [], command: root.type, arguments: [], options: [:], flags: [], helpRequested: false)
        var index = 0
        var optionsEnded = false
        func fail(_ message: String) -> UsageError { UsageError(message, path: parsed.path) }

        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if !optionsEnded && token == "--" {
                optionsEnded = true
                continue
            }
            if !optionsEnded && (token == "--help" || token == "-h") {
                parsed.helpRequested = true
                continue
            }
            if !optionsEnded && token.hasPrefix("--") && token.count > 2 {
                let body = token.dropFirst(2)
                let name: String
                var inlineValue: String?
                if let equals = body.firstIndex(of: "=") {
                    name = String(body[..<equals])
                    inlineValue = String(body[body.index(after: equals)...])
                } else {
                    name = String(body)
                }
                if let option = (command.options + globalOptions).first(where: { $0.name == name }) {
                    let value: String
                    if let inlineValue {
                        value = inlineValue
                    } else {
                        guard index < arguments.count, !Self.looksLikeOption(arguments[index]) else {
                            throw fail("option '--\(name)' needs a value (\(option.valueName))")
                        }
                        value = arguments[index]
                        index += 1
                    }
                    if let allowed = option.allowedValues, !allowed.contains(value) {
                        throw fail(
                            "'\(value)' is not a valid value for '--\(name)'; use \(allowed.joined(separator: ", "))")
                    }
                    if parsed.options[name] != nil && !option.isRepeatable {
                        throw fail("option '--\(name)' was given more than once")
                    }
                    parsed.options[name, default: []].append(value)
                    continue
                }
                if command.flags.contains(where: { $0.name == name }) {
                    if inlineValue != nil { throw fail("flag '--\(name)' does not take a value") }
                    // A flag given twice is as likely a slip as an option given twice, and is refused the same way.
                    guard parsed.flags.insert(name).inserted else {
                        throw fail("flag '--\(name)' was given more than once")
                    }
                    continue
                }
                throw fail("unknown option '--\(name)' for '\(displayName(parsed.path))'")
            }
            if !optionsEnded && token.hasPrefix("-") && token.count > 1 && Double(token) == nil {
                throw fail("unknown option '\(token)' for '\(displayName(parsed.path))'")
            }
            if !command.configuration.subcommands.isEmpty && parsed.arguments.isEmpty {
                if command.configuration.runsWithoutSubcommand && command.arguments.isEmpty,
                    command.configuration.subcommand(token) != nil,
                    !(parsed.options.keys.allSatisfy { name in globalOptions.contains { $0.name == name } })
                        || !parsed.flags.isEmpty
                {
                    throw fail("options of '\(displayName(parsed.path))' cannot come before its command '\(token)'")
                }
                guard let next = command.configuration.subcommand(token) else {
                    let names = command.configuration.subcommands.map { $0.configuration.commandName }
                        .joined(separator: ", ")
                    throw fail(
                        "unknown command '\(token)' for '\(displayName(parsed.path))'; expected one of: \(names)")
                }
                command = CommandSpec(next)
                parsed.command = next
                parsed.path.append(token)
                continue
            }
            parsed.arguments.append(token)
        }
        if parsed.helpRequested { return parsed }
        if !command.configuration.subcommands.isEmpty && !command.configuration.runsWithoutSubcommand {
            let names = command.configuration.subcommands.map { $0.configuration.commandName }.joined(separator: ", ")
            throw fail("'\(displayName(parsed.path))' needs a command: one of \(names)")
        }
        let variadic = command.arguments.last?.isVariadic == true
        if parsed.arguments.count > command.arguments.count && !variadic {
            throw fail("unexpected argument '\(parsed.arguments[command.arguments.count])'")
        }
        for (offset, argument) in command.arguments.enumerated() {
            if offset < parsed.arguments.count {
                let values = argument.isVariadic ? Array(parsed.arguments[offset...]) : [parsed.arguments[offset]]
                for value in values {
                    if let allowed = argument.allowedValues, !allowed.contains(value) {
                        throw fail(
                            "'\(value)' is not a valid \(argument.valueName); use \(allowed.joined(separator: ", "))")
                    }
                }
            } else {
                throw fail("missing \(argument.valueName) (\(argument.help.prefix { $0 != "." }.lowercased()))")
            }
        }
        for option in command.options where option.isRequired && parsed.options[option.name] == nil {
            throw fail("missing option '--\(option.name) \(option.valueName)'")
        }
        return parsed
    }

    /// Whether a token after an option that takes a value is another option rather than that value (so that
    /// `--size --quiet` says `--size` needs a value).
    ///
    /// A negative number is a value, and so is any token of a dash then a digit, such as `-1/3`: no option is named
    /// by a digit, and reading one as a missing value made `--shard -1/3` a usage error (64) where the option's own
    /// parser names the range (65).
    ///
    /// - Parameter token: The token after the option.
    /// - Returns: Whether it is `--`, `--NAME`, or `-` then anything but a digit that is not a number.
    static func looksLikeOption(_ token: String) -> Bool {
        guard token.hasPrefix("-"), token.count > 1 else { return false }
        let second = token[token.index(after: token.startIndex)]
        if second == "-" { return true }
        return !("0"..."9").contains(second) && Double(token) == nil
    }

    /// `tool sub sub`, for messages.
    package func displayName(_ path: [String]) -> String {
        ([root.name] + path).joined(separator: " ")
    }
}
