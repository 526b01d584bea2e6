/// A command as the parser and the help see it: its configuration and its declarations.
struct CommandSpec {
    /// The command's type.
    let type: any ParsableCommand.Type
    /// Its name, abstract, examples and subcommands.
    let configuration: CommandConfiguration
    /// Its arguments, options and flags.
    let declarations: Declarations

    init(_ type: any ParsableCommand.Type) {
        self.type = type
        self.configuration = type.configuration
        self.declarations = Declarations(of: type)
    }

    var name: String { configuration.commandName }
    var arguments: [ArgumentSpec] { declarations.arguments }
    var options: [OptionSpec] { declarations.options }
    var flags: [FlagSpec] { declarations.flags }
}

/// A positional argument; every one is required. The last may be variadic: one or more values.
struct ArgumentSpec {
    /// The name shown in usage, such as `NAME`.
    var valueName: String
    /// What it is.
    var help: String
    /// The only values it accepts, if restricted.
    var allowedValues: [String]?
    /// Whether it takes one or more values (only the command's last argument may).
    var isVariadic: Bool
}

/// An option that takes a value: `--name VALUE` or `--name=VALUE`.
struct OptionSpec {
    /// The option's name, without dashes.
    var name: String
    /// The name of its value, such as `NAME`.
    var valueName: String
    /// What it does.
    var help: String
    /// Whether the command needs it.
    var isRequired: Bool
    /// Whether it may be given several times.
    var isRepeatable: Bool
    /// The only values it accepts, if restricted.
    var allowedValues: [String]?
}

/// A flag: `--name`, on when present.
struct FlagSpec {
    /// The flag's name, without dashes.
    var name: String
    /// What it does.
    var help: String
}
