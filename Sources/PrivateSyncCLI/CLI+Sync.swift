import ArgumentParsing
import DeviceStore
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import SimulatedWorld

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension CLI {
    private struct LaunchJSON: Encodable {
        let device: String
        let userCreatedStore: String
        let steps: [String]
        let fallbackDetail: String?
        let status: StatusJSON
    }

    func launch() throws -> ExitCode {
        let world = try world()
        let options = LaunchSequence.Options(
            skipDirectoryFix: command.flag("skip-directory-fix"),
            skipEntitlementCheck: command.flag("skip-entitlement-check"))
        let app = try world.launch(command.option("device") ?? "", options: options)
        let device = app.device
        let status = try app.status()
        if json {
            Terminal.json(
                LaunchJSON(
                    device: device.name, userCreatedStore: app.record.userCreatedStore.rawValue,
                    steps: app.record.steps,
                    fallbackDetail: app.record.fallbackDetail, status: StatusJSON(status)))
        } else {
            Terminal.line("Launched the app on \(device.name):")
            for (index, step) in app.record.steps.enumerated() { Terminal.line("  \(index + 1). \(step)") }
            printStatus(status, device: device.name)
        }
        return .success
    }

    func syncSwitch(on: Bool) throws -> ExitCode {
        let world = try world()
        let app = try resumedApp(in: world).setSyncEnabled(on)
        let status = try app.status()
        if !json {
            Terminal.line(
                "Turned sync \(on ? "on" : "off") on \(app.device.name); the user-created store is now \(app.record.userCreatedStore.rawValue)"
            )
        }
        printStatus(status, device: app.device.name)
        return .success
    }

    private struct SyncNowJSON: Encodable {
        let ran: Bool
        let skippedBecause: String?
        let sentSaves: Int
        let sentDeletes: Int
        let fetchedModifications: Int
        let fetchedDeletions: Int
        let conflictsResolved: Int
        let outcome: String?
        let stoppedBecause: String?
        let refusedRequests: Int
        let requests: [RequestJSON]
        let status: StatusJSON
    }

    /// One container request of the cycle, as `sync now --json` shows it.
    struct RequestJSON: Encodable {
        struct Item: Encodable {
            let record: String
            let delete: Bool
            let error: String?
            let code: Int?
        }
        let operation: String
        let zone: String?
        let items: [Item]
        let batchSize: Int?
        let received: Int?
        let error: String?
        let code: Int?
        let fault: String?

        init(_ request: ContainerRequest) {
            operation = request.operation.rawValue
            zone = request.zone?.zoneName
            items = request.items.map {
                Item(record: $0.recordName, delete: $0.isDelete, error: $0.error?.name, code: $0.error?.rawValue)
            }
            batchSize = request.batchSize
            received = request.received
            error = request.error?.name
            code = request.error?.rawValue
            fault = request.fault
        }
    }

    func syncNow() async throws -> ExitCode {
        let world = try world()
        let app = try resumedApp(in: world)
        // The container file is checked before the engine touches it, so a damaged one is reported as such rather
        // than as a failed attempt to be retried.
        if app.container != nil, let account = app.device.session.account {
            let path = world.containerPath(account: account)
            if FileSystem.exists(path) { try ContainerFile.verify(path) }
        }
        // Likewise the fault file: a damaged one would otherwise inject nothing, silently.
        if let faults = world.faults as? PersistentFaults, FileSystem.exists(faults.path) { try faults.verify() }
        let sendOnly = command.flag("send-only")
        let fetchOnly = command.flag("fetch-only")
        if sendOnly && fetchOnly {
            throw CLIError(
                .usage, "--send-only and --fetch-only cannot be given together: choose one half of the cycle")
        }
        let report =
            sendOnly
            ? await app.sendChanges(force: true)
            : fetchOnly ? await app.fetchChanges(force: true) : await app.sync(force: true)
        let status = try app.status()
        let exit = try syncNowExitCode(report: report, status: status, app: app)
        if json {
            Terminal.json(
                SyncNowJSON(
                    ran: report?.ran ?? false,
                    skippedBecause: report?.skippedBecause ?? (report == nil ? "sync does not run" : nil),
                    sentSaves: report?.sentSaves ?? 0, sentDeletes: report?.sentDeletes ?? 0,
                    fetchedModifications: report?.fetchedModifications ?? 0,
                    fetchedDeletions: report?.fetchedDeletions ?? 0,
                    conflictsResolved: report?.conflictsResolved ?? 0, outcome: report?.outcome?.encoded,
                    stoppedBecause: report?.stoppedBecause?.rawValue, refusedRequests: report?.refusedRequests ?? 0,
                    requests: (report?.requests ?? []).map(RequestJSON.init), status: StatusJSON(status)))
            return exit
        }
        if let report {
            if let skipped = report.skippedBecause {
                Terminal.line("\(app.device.name): nothing moved; \(skipped)")
            } else {
                Terminal.line(
                    "\(app.device.name): sent \(report.sentSaves) save(s) and \(report.sentDeletes) delete(s); fetched "
                        + "\(report.fetchedModifications) change(s) and \(report.fetchedDeletions) deletion(s); "
                        + "\(report.conflictsResolved) conflict(s) merged")
                if case .retrying(let code)? = report.outcome {
                    Terminal.line("  the attempt failed: \(code); it will be retried")
                }
                if let stopped = report.stoppedBecause { Terminal.line("  the cycle stopped: \(stopped)") }
                if command.flag("verbose") {
                    for (index, request) in report.requests.enumerated() {
                        Terminal.line("  request \(index + 1): \(request)")
                    }
                }
            }
        } else {
            Terminal.line("\(app.device.name): nothing moved; sync does not run on this device")
        }
        printStatus(status, device: app.device.name)
        return exit
    }

    /// The exit code of `sync now`: 0 when the cycle finished, 75 when it failed transiently (it will be retried) or
    /// another sync was running, 69 when sync is paused, 78 when sync is off; a container that cannot be read is
    /// refused with 74 naming it, like any damaged file.
    ///
    /// - Throws: ``CLIError`` `ioError` when the cycle paused because the container cannot be read.
    private func syncNowExitCode(report: SyncReport?, status: SyncStatus, app: LaunchedApp) throws -> ExitCode {
        if status.state == .off || report?.stoppedBecause == .syncTurnedOff { return .syncOff }
        if status.pauseReason == .containerUnusable || report?.outcome == .paused(.containerUnusable) {
            let detail = (try? app.engine?.state().lastError) ?? nil
            throw CLIError(
                .ioError,
                "the container of \(app.device.session.account?.rawValue ?? "this account") cannot be read: "
                    + (detail ?? "its storage is damaged"))
        }
        guard let report else { return .unavailable }
        switch report.outcome {
        case .succeeded?: return .success
        case .retrying?: return .temporaryFailure
        case .paused?, .accountUnusable?: return .unavailable
        case nil:
            if report.stoppedBecause != nil { return .temporaryFailure }
            if status.pauseReason != nil { return .unavailable }
            // Skipped: another sync was running (a forced sync skips for nothing else while on).
            return .temporaryFailure
        }
    }

    func syncReset() throws -> ExitCode {
        let world = try world()
        let app = try resumedApp(in: world)
        try app.resetSyncBookkeeping()
        let status = try app.status()
        if json {
            Terminal.json(StatusJSON(status))
        } else {
            Terminal.line("\(app.device.name): the sync bookkeeping was reset; the next cycle fetches everything again")
            printStatus(status, device: app.device.name)
        }
        return .success
    }

    func syncStatus() throws -> ExitCode {
        let world = try world()
        let device = try device(in: world)
        let status = try LaunchSequence(device: device, environment: world.environment(for: device)).status()
        printStatus(status, device: device.name)
        return .success
    }
}
