/// A command of a command-line tool, declared: its name, what it does, its arguments, options, flags and
/// subcommands. ``ArgumentParser`` parses against it and ``HelpFormatter`` writes its help.
public struct CommandSpec: Sendable {
    /// The command's name, as typed.
    public var name: String
    /// One line saying what the command does.
    public var abstract: String
    /// More about it, for `--help`.
    public var discussion: String?
    /// Positional arguments, in order.
    public var arguments: [ArgumentSpec]
    /// Options that take a value.
    public var options: [OptionSpec]
    /// Flags: options without a value.
    public var flags: [FlagSpec]
    /// Subcommands; a command with subcommands needs one, unless it ``runsWithoutSubcommand``.
    public var subcommands: [CommandSpec]
    /// Whether the command runs by itself as well as through its subcommands (`simulate` and `simulate merge`).
    /// Its own options and flags must then come after its name and before no subcommand.
    public var runsWithoutSubcommand: Bool
    /// Example invocations, for `--help`.
    public var examples: [String]

    /// Creates a command.
    public init(
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
    public func subcommand(_ name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}

/// A positional argument; every one is required. The last may be variadic: one or more values.
public struct ArgumentSpec: Sendable {
    /// The name shown in usage, such as `NAME`.
    public var valueName: String
    /// What it is.
    public var help: String
    /// The only values it accepts, if restricted.
    public var allowedValues: [String]?
    /// Whether it takes one or more values (only the command's last argument may).
    public var isVariadic: Bool

    /// Creates an argument.
    public init(_ valueName: String, help: String, allowedValues: [String]? = nil, isVariadic: Bool = false) {
        self.valueName = valueName
        self.help = help
        self.allowedValues = allowedValues
        self.isVariadic = isVariadic
    }
}

/// An option that takes a value: `--name VALUE` or `--name=VALUE`.
public struct OptionSpec: Sendable {
    /// The option's name, without dashes.
    public var name: String
    /// The name of its value, such as `NAME`.
    public var valueName: String
    /// What it does.
    public var help: String
    /// Whether the command needs it.
    public var isRequired: Bool
    /// Whether it may be given several times.
    public var isRepeatable: Bool
    /// The only values it accepts, if restricted.
    public var allowedValues: [String]?

    /// Creates an option.
    public init(
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
public struct FlagSpec: Sendable {
    /// The flag's name, without dashes.
    public var name: String
    /// What it does.
    public var help: String

    /// Creates a flag.
    public init(_ name: String, help: String) {
        self.name = name
        self.help = help
    }
}

/// A command line, parsed.
public struct ParsedCommand: Sendable, Equatable {
    /// The names of the commands chosen, from the root's subcommand down (`["device", "add"]`).
    public var path: [String]
    /// Positional arguments, in order.
    public var arguments: [String]
    /// Each option's values, in the order given.
    public var options: [String: [String]]
    /// The flags given.
    public var flags: Set<String>
    /// Whether `--help` (or `-h`) was given: the caller prints help for ``path`` and does nothing else.
    public var helpRequested: Bool

    /// The single value of an option, if given.
    public func option(_ name: String) -> String? {
        options[name]?.last
    }

    /// Whether a flag was given.
    public func flag(_ name: String) -> Bool {
        flags.contains(name)
    }
}

/// A command line that does not fit its command: what is wrong, and for which command.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in one sentence.
    public let message: String
    /// The command it concerns (`["device", "add"]`), for the usage line and the pointer to `--help`.
    public let path: [String]

    /// Creates an error.
    public init(_ message: String, path: [String]) {
        self.message = message
        self.path = path
    }

    public var description: String { message }
}
