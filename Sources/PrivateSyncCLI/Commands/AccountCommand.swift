import ArgumentParsing

/// `privatesync account`: its subcommands.
struct AccountCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "account",
            abstract: "Sign a device in or out of iCloud, set its account status, resolve a switch.",
            subcommands: [SignIn.self, SignOut.self, Status.self, StartFresh.self])
    }
}
