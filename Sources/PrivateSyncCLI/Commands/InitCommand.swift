import ArgumentParsing
import DemoSchema
import DeviceStore
import PrivateCloud
import SimulatedWorld

/// `privatesync init`.
struct InitCommand: RunnableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "init", abstract: "Create a world, with the demo health schema unless a schema is given.",
            discussion: "Refuses to touch an existing world, or any folder that is not empty.",
            examples: [
                "privatesync --home /tmp/w init",
                "privatesync init --schema my-schema.json --container iCloud.org.me.app",
            ])
    }

    @Option(valueName: "FILE", help: "A schema file (see docs/schema.md).") var schema: String?
    @Option(
        valueName: "ID", help: "The container identifier (default iCloud.com.example.me).",
        parsing: .containerIdentifier)
    var container: ContainerIdentifier?

    /// The most bytes a schema file may hold: far more than any schema of CloudKit's limits needs, and a bound on
    /// what `--schema /dev/zero` costs.
    static let schemaFileLimit = 4 * 1024 * 1024

    func run(_ cli: CLI) throws -> ExitCode {
        let identifier = container ?? World.demoContainerIdentifier
        try HomePath.checkLength(of: cli.home, identifier: identifier)
        let partition = try schema.map(Self.schema(fromFile:)) ?? .demoHealth
        let world = try World.create(at: cli.home, partition: partition, containerIdentifier: identifier)
        Terminal.line("Created a world at \(world.home)")
        Terminal.line(
            "  schema: \(partition.schema.name) (\(partition.userCreatedTypes.count) user-created types, "
                + "\(partition.localOnlyTypes.count) local-only)")
        Terminal.line("  container: \(identifier)")
        return .success
    }

    /// Reads a schema file, at most ``schemaFileLimit`` bytes of it.
    private static func schema(fromFile path: String) throws -> SyncPartition {
        let shown = TextEscaping.name(path)
        let bytes = try BoundedFileRead.read(path, limit: schemaFileLimit) { code, reason in
            switch code {
            case .notFound: "the schema file \(shown) does not exist"
            case .isFolder: "the schema file \(shown) is a folder"
            case .tooLarge: "the schema file \(shown) is larger than \(schemaFileLimit) bytes; it is not a schema"
            case .unreadable: "cannot read the schema file \(shown): \(reason)"
            }
        }
        // The schema's messages name their source: the shown name, not the whole path, which may be thousands of
        // characters (a path of `./` repeated).
        return try SyncPartition.decode(json: bytes, source: shown)
    }
}
