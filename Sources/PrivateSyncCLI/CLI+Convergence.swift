import PrivateSync
import SimulatedWorld

extension CLI {
    /// `audit --convergence`: each device's user-created records against its account's container.
    func convergenceAudit() throws -> ExitCode {
        let world = try world()
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
