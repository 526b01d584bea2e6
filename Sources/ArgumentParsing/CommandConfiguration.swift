/// What a command says about itself, beyond its arguments and options: its name, what it does, examples, and its
/// subcommands.
public struct CommandConfiguration {
    /// The command's name, as typed.
    public var commandName: String
    /// One line saying what the command does.
    public var abstract: String
    /// More about it, for `--help`.
    public var discussion: String?
    /// Example invocations, for `--help`.
    public var examples: [String]
    /// Subcommands; a command with subcommands needs one, unless it ``runsWithoutSubcommand``.
    public var subcommands: [any ParsableCommand.Type]
    /// Whether the command runs by itself as well as through its subcommands (`simulate` and `simulate merge`).
    /// Its own options and flags must then come after its name and before no subcommand.
    public var runsWithoutSubcommand: Bool

    /// Creates a configuration.
    public init(
        commandName: String, abstract: String, discussion: String? = nil, examples: [String] = [],
        subcommands: [any ParsableCommand.Type] = [], runsWithoutSubcommand: Bool = false
    ) {
        self.commandName = commandName
        self.abstract = abstract
        self.discussion = discussion
        self.examples = examples
        self.subcommands = subcommands
        self.runsWithoutSubcommand = runsWithoutSubcommand
    }

    /// The subcommand of that name.
    func subcommand(_ name: String) -> (any ParsableCommand.Type)? {
        subcommands.first { $0.configuration.commandName == name }
    }
}
