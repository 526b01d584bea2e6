import ArgumentParsing
import DeviceStore
import PartitionMirror
import PrivateCloud
import PrivateSync
import PrivateSyncFileSystem
import SimulatedWorld

extension SyncCommand {
    /// `privatesync sync now`.
    struct Now: RunnableCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "now", abstract: "One send-and-fetch cycle right away, whatever the retry schedule says.",
                discussion:
                    "Exit 0 when the cycle finished, 75 when it failed transiently (it will be retried), 69 when sync is paused, 78 when sync is off, 74 when the container cannot be read (docs/cli.md).",
                examples: [
                    "privatesync sync now --device phone --fetch-only",
                    "privatesync sync now --device phone --json",
                ])
        }

        @Option(valueName: "NAME", help: CommandHelp.device) var device: String
        @Flag(help: CommandHelp.json) var json: Bool
        @Flag(help: "Half a cycle: send pending changes, fetch nothing.") var sendOnly: Bool
        @Flag(help: "Half a cycle: fetch changes, send nothing.") var fetchOnly: Bool
        @Flag(help: "Also print every container request the cycle made.") var verbose: Bool

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
            /// The records fetched in this cycle with a value this device could not take.
            let fetchedRecordProblems: [StatusJSON.Problem]
            /// Why the cycle stopped when the device's own store failed, if it did.
            let storeFailure: String?
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

        func validate() throws {
            if sendOnly && fetchOnly {
                throw CLIError(
                    .usage, "--send-only and --fetch-only cannot be given together: choose one half of the cycle")
            }
        }

        func run(_ cli: CLI) async throws -> ExitCode {
            let world = try cli.world()
            let app = try cli.resumedApp(device, in: world)
            // The container file is checked before the engine touches it, so a damaged one is reported as such rather
            // than as a failed attempt to be retried.
            if app.container != nil, let account = app.device.session.account {
                let path = world.containerPath(account: account)
                if FileSystem.exists(path) { try ContainerFile.verify(path) }
            }
            // Likewise the fault file: a damaged one would otherwise inject nothing, silently.
            if let faults = world.faults as? PersistentFaults, FileSystem.exists(faults.path) { try faults.verify() }
            let report: SyncReport?
            if cli.isMirrored(app) {
                // CKSyncEngine's delegate: the mirror's cycle, reported in the same shape (`requests` stays empty:
                // the engine's requests are its own).
                report = try await cli.mirroredApp(app)?.sync(fetching: !sendOnly, sending: !fetchOnly)
            } else {
                report =
                    sendOnly
                    ? await app.sendChanges(force: true)
                    : fetchOnly ? await app.fetchChanges(force: true) : await app.sync(force: true)
            }
            let status = try app.status()
            let exit = try syncNowExitCode(report: report, status: status, app: app, cli: cli)
            if json {
                Terminal.json(
                    SyncNowJSON(
                        ran: report?.ran ?? false,
                        skippedBecause: report?.skippedBecause?.text ?? (report == nil ? "sync does not run" : nil),
                        sentSaves: report?.sentSaves ?? 0, sentDeletes: report?.sentDeletes ?? 0,
                        fetchedModifications: report?.fetchedModifications ?? 0,
                        fetchedDeletions: report?.fetchedDeletions ?? 0,
                        conflictsResolved: report?.conflictsResolved ?? 0, outcome: report?.outcome?.encoded,
                        stoppedBecause: report?.stoppedBecause?.rawValue, refusedRequests: report?.refusedRequests ?? 0,
                        fetchedRecordProblems: (report?.events ?? []).compactMap { event in
                            guard case .fetchedRecordProblem(let name, let problem) = event else { return nil }
                            return StatusJSON.Problem(record: name, problem: problem)
                        },
                        storeFailure: report?.storeFailure,
                        requests: (report?.requests ?? []).map(RequestJSON.init), status: StatusJSON(status)))
                return exit
            }
            if let report {
                if let skipped = report.skippedBecause {
                    Terminal.line("\(app.device.name): nothing moved; \(skipped.text)")
                } else {
                    Terminal.line(
                        "\(app.device.name): sent \(report.sentSaves) save(s) and \(report.sentDeletes) delete(s); fetched "
                            + "\(report.fetchedModifications) change(s) and \(report.fetchedDeletions) deletion(s); "
                            + "\(report.conflictsResolved) conflict(s) merged")
                    if case .retrying(let code)? = report.outcome {
                        Terminal.line("  the attempt failed: \(code); it will be retried")
                    }
                    if report.outcome == .diskFull {
                        Terminal.line("  the attempt failed: the disk is full; it will be retried once there is space")
                    }
                    if report.outcome == .fileBusy {
                        Terminal.line(
                            "  the attempt failed: busy, another process held the files locked; it will be retried")
                    }
                    if let stopped = report.stoppedBecause { Terminal.line("  the cycle stopped: \(stopped)") }
                    if let failure = report.storeFailure {
                        Terminal.line("  the attempt failed: this device's store: \(failure); it will be retried")
                    }
                    for case .fetchedRecordProblem(let name, let problem) in report.events {
                        Terminal.line(
                            "  record \(TextEscaping.escape(name)) from iCloud: \(TextEscaping.escape(problem))")
                    }
                    if verbose {
                        for (index, request) in report.requests.enumerated() {
                            Terminal.line("  request \(index + 1): \(request)")
                        }
                    }
                }
            } else {
                Terminal.line("\(app.device.name): nothing moved; sync does not run on this device")
            }
            cli.printStatus(status, device: app.device.name, json: json)
            return exit
        }

        /// The exit code of `sync now`: 0 when the cycle finished, 75 when it failed transiently (it will be retried) or
        /// another sync was running, 69 when sync is paused, 78 when sync is off; a container that cannot be read is
        /// refused with 74 naming it, like any damaged file.
        ///
        /// - Parameters:
        ///   - report: The cycle's report, or `nil` when sync does not run on the device.
        ///   - status: The status after the cycle.
        ///   - app: The app.
        ///   - cli: The CLI, which tells a device whose build is CKSyncEngine's delegate.
        /// - Returns: The exit code.
        /// - Throws: ``CLIError`` `ioError` when the cycle paused because the container cannot be read.
        private func syncNowExitCode(
            report: SyncReport?, status: SyncStatus, app: LaunchedApp, cli: CLI
        ) throws -> ExitCode {
            if status.state == .off || report?.stoppedBecause == .syncTurnedOff { return .syncOff }
            if status.pauseReason == .containerUnusable || report?.outcome == .paused(.containerUnusable) {
                let detail = (try? app.engine?.state().lastError) ?? nil
                throw CLIError(
                    .ioError,
                    "the container of \(app.device.session.account?.rawValue ?? "this account") cannot be read: "
                        + (detail ?? "its storage is damaged"))
            }
            guard let report else { return .unavailable }
            // CKSyncEngine's delegate pauses by itself (the engine's operation fails, or finishes having heard why):
            // whatever the cycle's outcome, a device whose status says paused is paused, 69.
            if cli.isMirrored(app) && status.pauseReason != nil { return .unavailable }
            switch report.outcome {
            case .succeeded?: return .success
            case .retrying?, .diskFull?, .fileBusy?: return .temporaryFailure
            case .paused?, .accountUnusable?: return .unavailable
            case nil:
                if report.stoppedBecause != nil { return .temporaryFailure }
                if status.pauseReason != nil { return .unavailable }
                // Skipped: another sync was running (a forced sync skips for nothing else while on).
                return .temporaryFailure
            }
        }
    }
}
