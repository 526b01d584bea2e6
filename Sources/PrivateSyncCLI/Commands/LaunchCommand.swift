import ArgumentParsing
import PrivateSync
import SimulatedWorld

/// `privatesync launch`.
struct LaunchCommand: RunnableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "launch", abstract: "A cold start of the app: runs the launch sequence and prints the status.",
            discussion:
                "The two skip flags exist only to reproduce the first-launch traps (docs/trap-missing-directory.md, docs/trap-missing-entitlement.md). Without the entitlement and with --skip-entitlement-check, the process traps (dies by SIGTRAP) as CloudKit does.",
            examples: [
                "privatesync launch --device phone", "privatesync launch --device phone --skip-directory-fix",
            ])
    }

    @Option(valueName: "NAME", help: CommandHelp.device) var device: String
    @Flag(help: "Do not create Library/Application Support first (trap 1).") var skipDirectoryFix: Bool
    @Flag(help: "Do not check the entitlement before CloudKit (trap 2).") var skipEntitlementCheck: Bool
    @Flag(help: CommandHelp.json) var json: Bool

    private struct LaunchJSON: Encodable {
        let device: String
        let userCreatedStore: String
        let steps: [String]
        let fallbackDetail: String?
        let status: StatusJSON
    }

    func run(_ cli: CLI) throws -> ExitCode {
        let world = try cli.world()
        let options = LaunchSequence.Options(
            skipDirectoryFix: skipDirectoryFix, skipEntitlementCheck: skipEntitlementCheck)
        let app = try world.launch(device, options: options)
        let device = app.device
        let status = try app.status()
        if json {
            Terminal.json(
                LaunchJSON(
                    device: device.name, userCreatedStore: app.record.userCreatedStore.rawValue,
                    steps: app.record.steps.map(\.text),
                    fallbackDetail: app.record.fallbackDetail, status: StatusJSON(status)))
        } else {
            Terminal.line("Launched the app on \(device.name):")
            for (index, step) in app.record.steps.enumerated() { Terminal.line("  \(index + 1). \(step.text)") }
            cli.printStatus(status, device: device.name, json: false)
        }
        return .success
    }
}
