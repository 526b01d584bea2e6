import ArgumentParsing
import DeviceStore
import PartitionMirror
import PrivateCloud
import PrivateSync

extension AccountCommand {
    /// `privatesync account start-fresh`.
    struct StartFresh: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "start-fresh",
                abstract: "After an account switch: keep the old account's data apart and sync with the new one.",
                discussion:
                    "Moves the previous account's records into an archive store on the device (nothing is deleted), and lets the device sync with the account signed in now."
            )
        }

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String

        func run(_ cli: CLI) async throws -> ExitCode {
            let world = try cli.world()
            let app = try cli.resumedApp(device, in: world)
            let archive: (path: String, records: Int)
            if cli.isMirrored(app) {
                // CKSyncEngine's delegate: the mirror's start afresh, once its engine heard of the switch.
                guard let mirrored = try cli.mirroredApp(app),
                    let made = try await mirrored.startFreshForSignedInAccount()
                else {
                    throw CLIError(
                        .dataError,
                        "device \(app.device.name)'s data already belongs to the signed-in account; there is nothing "
                            + "to start afresh from")
                }
                archive = made
            } else {
                archive = try app.startFreshForSignedInAccount()
            }
            Terminal.line(
                "Kept the previous account's \(archive.records) record(s) apart, on the device, in \(archive.path)")
            Terminal.line(
                "\(app.device.name) now syncs with \(app.device.session.account?.rawValue ?? "no account"); run: privatesync sync now --device \(app.device.name)"
            )
            return .success
        }
    }
}
