extension SyncEngine {
    /// Reports what a step resolved: the count of conflicts in the cycle's report, and an event per record.
    ///
    /// - Parameters:
    ///   - resolved: What the step resolved.
    ///   - report: The cycle's report.
    func absorb(_ resolved: ResolvedRecords, _ report: inout SyncReport) {
        report.conflictsResolved += resolved.conflicts.count
        for name in resolved.conflicts { emit(.conflictResolved(recordName: name), &report) }
        for name in resolved.tooLarge { emit(.mergeTooLarge(recordName: name), &report) }
        for name in resolved.deleteWins { emit(.deleteWon(recordName: name), &report) }
    }
}
