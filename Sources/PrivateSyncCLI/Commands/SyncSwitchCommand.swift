import ArgumentParsing
import DeviceStore
import PartitionMirror
import PrivateSync

/// `privatesync sync on` and `sync off`: the settings switch, one command for each position. The two differ only in
/// the position they set, so their name, their help and their work are written once, here.
protocol SyncSwitchCommand: RunnableCommand {
    /// The position the command sets: `true` for `sync on`.
    static var turnsOn: Bool { get }
    /// The device whose switch it flips.
    var device: String { get }
    /// Whether to print JSON.
    var json: Bool { get }
}

extension SyncSwitchCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: turnsOn ? "on" : "off",
            abstract: "Turn sync \(turnsOn ? "on" : "off"), as the settings switch does.")
    }

    /// Flips the sync switch on the device, then prints what was done and the status it leads to.
    ///
    /// - Parameter cli: The world's folder, and the steps commands share.
    /// - Returns: Success.
    /// - Throws: What opening the world and resuming the device's app throw, and a refused switch.
    func run(_ cli: CLI) async throws -> ExitCode {
        let world = try cli.world()
        let resumed = try cli.resumedApp(device, in: world)
        // The mirror's folder is locked before the switch flips: a folder another command holds past the wait
        // fails `sync on` (75) with nothing changed, never with the switch on and the user's consent not yet heard.
        let hold = Self.turnsOn && cli.isMirrored(resumed) ? try MirroredApp.holdFolder(of: resumed.device) : nil
        let app = try resumed.setSyncEnabled(Self.turnsOn)
        // Turning sync on is the user's consent to upload again after deleting the app's data from iCloud: the app's
        // own engine hears it in `setSyncEnabled`, CKSyncEngine's delegate here.
        if Self.turnsOn, let mirrored = try MirroredApp.open(app, holding: hold) {
            try await mirrored.userTurnedSyncOn()
        }
        let status = try app.status()
        if !json {
            Terminal.line(
                "Turned sync \(Self.turnsOn ? "on" : "off") on \(app.device.name); the user-created store is now \(app.record.userCreatedStore.rawValue)"
            )
        }
        cli.printStatus(status, device: app.device.name, json: json)
        return .success
    }
}
