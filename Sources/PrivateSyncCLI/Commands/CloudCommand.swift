import ArgumentParsing

/// `privatesync cloud`: its subcommands.
struct CloudCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "cloud",
            abstract: "Write into an account's container directly, as another client or app version would.",
            discussion:
                "These commands go through the container's own semantics (change tags, zones, field types), meet no injected fault, and use the engine's zone unless --zone is given. The container is schemaless: any record type and field key CloudKit accepts may be written. A field the app's schema declares for the type is read by its type; another is inferred (true/false, an integer, a number, a date, else a string) unless typed as KEY:TYPE=VALUE (docs/cli.md).",
            subcommands: [CloudRecordCommand.self, CloudZoneCommand.self])
    }
}
