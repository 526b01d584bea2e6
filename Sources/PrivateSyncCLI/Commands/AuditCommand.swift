import ArgumentParsing
import PrivateSync
import SimulatedWorld

/// `privatesync audit`.
struct AuditCommand: RunnableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "audit",
            abstract: "Read every container file and report local-only records and records in the wrong account.",
            discussion:
                "Exit 0 when clean, 1 when not. With --convergence: each device's user-created records against its account's container (fields and record times); exit 1 on a difference no pending change explains."
        )
    }

    @Flag(help: CommandHelp.json) var json: Bool
    @Flag(help: "Compare each device with its account's container instead.") var convergence: Bool

    func run(_ cli: CLI) throws -> ExitCode {
        if convergence { return try convergenceAudit(cli) }
        let world = try cli.world()
        let report = try world.audit()
        if json {
            struct FindingJSON: Encodable {
                let kind: String
                let file: String
                let record: String?
                let detail: String
            }
            struct AuditJSON: Encodable {
                let clean: Bool
                let containersChecked: Int
                let recordsChecked: Int
                let findings: [FindingJSON]
            }
            Terminal.json(
                AuditJSON(
                    clean: report.isClean, containersChecked: report.containersChecked,
                    recordsChecked: report.recordsChecked,
                    findings: report.findings.map {
                        FindingJSON(kind: $0.kind.rawValue, file: $0.file, record: $0.recordName, detail: $0.detail)
                    }))
        } else if report.isClean {
            Terminal.line(
                "Audit clean: \(report.recordsChecked) record(s) in \(report.containersChecked) container file(s); no local-only "
                    + "record left its device, and no record reached another account.")
        } else {
            Terminal.line("Audit found \(report.findings.count) problem(s):")
            for finding in report.findings {
                Terminal.line("  \(finding.kind.rawValue): \(finding.detail) [\(finding.file)]")
            }
        }
        return report.isClean ? .success : .checkFailed
    }

    /// `audit --convergence`: each device's user-created records against its account's container.
    private func convergenceAudit(_ cli: CLI) throws -> ExitCode {
        let world = try cli.world()
        let reports = try world.convergenceAudit()
        let converged = reports.allSatisfy(\.isConverged)
        if json {
            struct DifferenceJSON: Encodable {
                let record: String
                let kind: String
                let pending: Bool
                let detail: String
            }
            struct DeviceJSON: Encodable {
                let device: String
                let account: String?
                let converged: Bool
                let recordsOnDevice: Int
                let recordsInContainer: Int
                let pendingChanges: Int
                let differences: [DifferenceJSON]
            }
            struct ConvergenceJSON: Encodable {
                let converged: Bool
                let devices: [DeviceJSON]
            }
            Terminal.json(
                ConvergenceJSON(
                    converged: converged,
                    devices: reports.map { report in
                        DeviceJSON(
                            device: report.device, account: report.account?.rawValue, converged: report.isConverged,
                            recordsOnDevice: report.recordsOnDevice, recordsInContainer: report.recordsInContainer,
                            pendingChanges: report.pendingChanges,
                            differences: report.differences.map {
                                DifferenceJSON(
                                    record: $0.recordName, kind: $0.kind.rawValue, pending: $0.explainedByPendingChange,
                                    detail: $0.detail)
                            })
                    }))
            return converged ? .success : .checkFailed
        }
        for report in reports {
            guard let account = report.account else {
                Terminal.line("\(report.device): nothing to compare (never launched, or no iCloud account)")
                continue
            }
            let verdict = report.isConverged ? "converged" : "NOT converged"
            Terminal.line(
                "\(report.device) ↔ \(account): \(verdict); \(report.recordsOnDevice) on the device, "
                    + "\(report.recordsInContainer) in the container, \(report.pendingChanges) pending")
            for difference in report.differences { Terminal.line("  \(difference)") }
        }
        return converged ? .success : .checkFailed
    }
}
