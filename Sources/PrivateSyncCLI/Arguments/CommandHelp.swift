/// Help text that several commands' declarations share.
enum CommandHelp {
    static let device = "The device."
    static let json = "Print exactly one JSON object (shapes in docs/cli.md)."
    static let allowReserved =
        "Also write the keys the app's sync keeps for itself (syncFieldVersions, syncCreatedAt), as a broken or hostile client might."
    static let cloudAccount = "The account."
    static let zone = "The zone (default: the engine's zone, PrivateSyncZone)."
    static let cloudField = "A field value; KEY:TYPE=VALUE gives its type."
    static let coverage = "Also print how many seeds reached each of the simulator's paths (docs/simulator.md)."
}
