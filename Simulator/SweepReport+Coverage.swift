extension SweepReport {
    /// The share of a sweep's seeds below which a path counts as rarely reached: a finding about the generator, as a
    /// bug on such a path is one a sweep of a few hundred seeds meets by luck.
    public static let rarePathShare = 0.05

    /// The paths reached by fewer than ``rarePathShare`` of the seeds, with their counts, rarest first.
    public var rarePaths: [(path: String, seeds: Int)] {
        guard let coverage, seeds > 0 else { return [] }
        return coverage.filter { Double($0.value) < Self.rarePathShare * Double(seeds) }
            .sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map { (path: $0.key, seeds: $0.value) }
    }
}
