import ArgumentParsing

/// `privatesync device`: its subcommands.
struct DeviceCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "device", abstract: "Install the app on devices, list them, reinstall or upgrade it.",
            subcommands: [Add.self, List.self, Reinstall.self, Upgrade.self])
    }
}
