import ArgumentParsing

/// `privatesync record`: its subcommands.
struct RecordCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "record", abstract: "Add, edit, delete and list records on a device.",
            subcommands: [Add.self, Edit.self, Delete.self, List.self])
    }
}
