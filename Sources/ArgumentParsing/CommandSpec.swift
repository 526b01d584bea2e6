/// A command of a command-line tool, declared: its name, what it does, its arguments, options, flags and
/// subcommands. ``ArgumentParser`` parses against it and ``HelpFormatter`` writes its help.
package struct CommandSpec: Sendable {
    /// The command's name, as typed.
    package var name: String
    /// One line saying what the command does.
    package var abstract: String
    /// More about it, for `--help`.
    package var discussion: String?
    /// Positional arguments, in order.
    package var arguments: [ArgumentSpec]
    /// Options that take a value.
    package var options: [OptionSpec]
    /// Flags: options without a value.
    package var flags: [FlagSpec]
    /// Subcommands; a command with subcommands needs one, unless it ``runsWithoutSubcommand``.
    package var subcommands: [CommandSpec]
    /// Whether the command runs by itself as well as through its subcommands (`simulate` and `simulate merge`).
    /// Its own options and flags must then come after its name and before no subcommand.
    package var runsWithoutSubcommand: Bool
    /// Example invocations, for `--help`.
    package var examples: [String]

    /// Creates a command.
    package init(
        _ name: String, abstract: String, discussion: String? = nil, arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [], flags: [FlagSpec] = [], subcommands: [CommandSpec] = [], examples: [String] = [],
        runsWithoutSubcommand: Bool = false
    ) {
        self.runsWithoutSubcommand = runsWithoutSubcommand
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.flags = flags
        self.subcommands = subcommands
        self.examples = examples
    }

    /// The subcommand of that name.
    package func subcommand(_ name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}

/// A positional argument; every one is required. The last may be variadic: one or more values.
package struct ArgumentSpec: Sendable {
    /// The name shown in usage, such as `NAME`.
    package var valueName: String
    /// What it is.
    package var help: String
    /// The only values it accepts, if restricted.
    package var allowedValues: [String]?
    /// Whether it takes one or more values (only the command's last argument may).
    package var isVariadic: Bool

    /// Creates an argument.
    package init(_ valueName: String, help: String, allowedValues: [String]? = nil, isVariadic: Bool = false) {
        self.valueName = valueName
        self.help = help
        self.allowedValues = allowedValues
        self.isVariadic = isVariadic
    }
}

/// An option that takes a value: `--name VALUE` or `--name=VALUE`.
package struct OptionSpec: Sendable {
    /// The option's name, without dashes.
    package var name: String
    /// The name of its value, such as `NAME`.
    package var valueName: String
    /// What it does.
    package var help: String
    /// Whether the command needs it.
    package var isRequired: Bool
    /// Whether it may be given several times.
    package var isRepeatable: Bool
    /// The only values it accepts, if restricted.
    package var allowedValues: [String]?

    /// Creates an option.
    package init(
        _ name: String, valueName: String, help: String, isRequired: Bool = false, isRepeatable: Bool = false,
        allowedValues: [String]? = nil
    ) {
        self.name = name
        self.valueName = valueName
        self.help = help
        self.isRequired = isRequired
        self.isRepeatable = isRepeatable
        self.allowedValues = allowedValues
    }
}

/// A flag: `--name`, on when present.
package struct FlagSpec: Sendable {
    /// The flag's name, without dashes.
    package var name: String
    /// What it does.
    package var help: String

    /// Creates a flag.
    package init(_ name: String, help: String) {
        self.name = name
        self.help = help
    }
}

/// A command line, parsed.
package struct ParsedCommand: Sendable, Equatable {
    /// The names of the commands chosen, from the root's subcommand down (`["device", "add"]`).
    package var path: [String]
    /// Positional arguments, in order.
    package var arguments: [String]
    /// Each option's values, in the order given.
    package var options: [String: [String]]
    /// The flags given.
    package var flags: Set<String>
    /// Whether `--help` (or `-h`) was given: the caller prints help for ``path`` and does nothing else.
    package var helpRequested: Bool

    /// The single value of an option, if given.
    package func option(_ name: String) -> String? {
        options[name]?.last
    }

    /// Whether a flag was given.
    package func flag(_ name: String) -> Bool {
        flags.contains(name)
    }
}

/// A command line that does not fit its command: what is wrong, and for which command.
package struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in one sentence.
    package let message: String
    /// The command it concerns (`["device", "add"]`), for the usage line and the pointer to `--help`.
    package let path: [String]

    /// Creates an error.
    package init(_ message: String, path: [String]) {
        self.message = message
        self.path = path
    }

    package var description: String { message }
}
