import ArgumentParsing

/// The options every command accepts, anywhere on the line.
struct GlobalOptions: ParsableArguments {
    @Option(valueName: "DIR", help: "The world's folder (default: $PRIVATESYNC_HOME, else ./.privatesync).")
    var home: String?
}
