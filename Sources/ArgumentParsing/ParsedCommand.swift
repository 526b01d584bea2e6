/// A command line, parsed: which command it chose, and its values as text, checked against the command's
/// declarations. ``decodeCommand()`` turns them into the command, its values typed.
public struct ParsedCommand {
    /// The names of the commands chosen, from the root's subcommand down (`["device", "add"]`).
    public var path: [String]
    /// The command chosen.
    public var command: any ParsableCommand.Type
    /// Positional arguments, in order.
    public var arguments: [String]
    /// Each option's values, in the order given (global options too).
    public var options: [String: [String]]
    /// The flags given.
    public var flags: Set<String>
    /// Whether `--help` (or `-h`) was given: the caller prints help for ``path`` and does nothing else.
    public var helpRequested: Bool

    /// The chosen command, its declared values taken from the line.
    ///
    /// - Throws: ``ValueError`` for the first value (in the order declared) that its parser refuses.
    public func decodeCommand() throws(ValueError) -> any ParsableCommand {
        try command.decode(from: self)
    }

    /// The values of a group of options declared apart from the command, such as the global options.
    ///
    /// - Throws: ``ValueError`` for the first value its parser refuses.
    public func decode<Group: ParsableArguments>(_ group: Group.Type) throws(ValueError) -> Group {
        try group.decode(from: self)
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
