import PrivateSyncEngine

/// The weights one run draws its steps by (``SweepStepMix``): of each kind of step, of each reason for a zone's
/// deletion, the chance that the user answers a pause at a step of theirs, and how often another device's step runs
/// inside a device's request.
struct SweepStepWeights: Equatable, Sendable {
    /// How often each kind of step is drawn, against the others.
    var kinds: [SweepStepKind: Int]
    /// How often each reason is drawn for a deletion of a zone, against the others.
    var reasons: [PSDatabase.DatabaseChange.Deletion.Reason: Int]
    /// The chance that a user whose app waits for their word gives it, at a step of theirs.
    var answerChance: Double
    /// A factor on the sweep's chance that another device's step runs inside a device's request
    /// (``DelegateSweep/Configuration/interleaving``): how busy the household is.
    var interleavingFactor: Int

    /// The reasons, in the order a draw walks them.
    static let reasonOrder: [PSDatabase.DatabaseChange.Deletion.Reason] = [.deleted, .purged, .encryptedDataReset]

    /// The weights of ``SweepStepMix/even``: every kind at its own weight (``SweepStepKind/weight``), the three
    /// reasons alike, the user answering half the time.
    static let even = SweepStepWeights(
        kinds: Dictionary(uniqueKeysWithValues: SweepStepKind.allCases.map { ($0, $0.weight) }),
        reasons: Dictionary(uniqueKeysWithValues: reasonOrder.map { ($0, 1) }), answerChance: 0.5,
        interleavingFactor: 1)

    /// The weights of a run of ``SweepStepMix/swarm``, drawn from its seed by a generator of their own, so that the
    /// run's other draws are made as they would be: each kind of step left out (a fifth of the time), kept (two
    /// fifths), or drawn three or six times as often (crashes inside the app's own writes too, which the even mix
    /// never draws); the user's actions always kept (without them nothing happens); one reason
    /// for a zone's deletion favoured four to one; the user answering a pause seldom, half the time, or almost at once;
    /// then, unless `outages` is off, outages (weighed as the other kinds) and the devices' requests interleaved as
    /// often as the sweep says or three times as often. These come last, so that the weights drawn before them are
    /// those of a swarm without outages.
    ///
    /// - Parameters:
    ///   - seed: The run's seed.
    ///   - outages: Whether the run may draw outages and busier interleavings
    ///     (``DelegateSweep/Configuration/outages``); without, the weights are as before they existed.
    /// - Returns: The run's weights.
    static func swarm(seed: UInt64, outages: Bool = true) -> SweepStepWeights {
        // A generator of the mix's own: the run's own draws start from the seed as under `even`.
        var random = SweepRandom(seed: seed ^ 0x5357_4152_4D5F_4D49)
        var weights = even
        let factors = [0, 1, 1, 3, 6]
        for kind in SweepStepKind.allCases where kind != .outage {
            let factor = factors[random.int(below: 5)]
            weights.kinds[kind] = kind == .action ? kind.weight * max(1, factor) : kind.swarmWeight * factor
        }
        let favoured = reasonOrder[random.int(below: reasonOrder.count)]
        weights.reasons[favoured] = 4
        weights.answerChance = [0.1, 0.5, 0.9][random.int(below: 3)]
        guard outages else { return weights }
        weights.kinds[.outage] = SweepStepKind.outage.swarmWeight * factors[random.int(below: 5)]
        weights.interleavingFactor = [1, 1, 3][random.int(below: 3)]
        return weights
    }

    /// The weights of a run of a mix.
    ///
    /// - Parameters:
    ///   - mix: The mix.
    ///   - seed: The run's seed.
    ///   - outages: Whether a run of the swarm may draw outages (``DelegateSweep/Configuration/outages``).
    /// - Returns: The run's weights.
    static func of(_ mix: SweepStepMix, seed: UInt64, outages: Bool) -> SweepStepWeights {
        switch mix {
        case .even: even
        case .swarm: swarm(seed: seed, outages: outages)
        }
    }

    /// Draws a kind of step.
    ///
    /// - Parameter random: The run's generator.
    /// - Returns: The kind.
    func drawKind(_ random: inout SweepRandom) -> SweepStepKind {
        Self.pick(SweepStepKind.allCases, by: kinds, &random) ?? .action
    }

    /// Draws the reason for a deletion of a zone.
    ///
    /// - Parameter random: The run's generator.
    /// - Returns: The reason.
    func drawReason(_ random: inout SweepRandom) -> PSDatabase.DatabaseChange.Deletion.Reason {
        Self.pick(Self.reasonOrder, by: reasons, &random) ?? .deleted
    }

    /// One of `choices`, each as often as its weight says: one number drawn below the total, walked along the
    /// choices in order (so the weights of ``even`` draw as the fixed weights of earlier versions did).
    private static func pick<Choice: Hashable>(
        _ choices: [Choice], by weights: [Choice: Int], _ random: inout SweepRandom
    ) -> Choice? {
        let total = choices.reduce(0) { $0 + (weights[$1] ?? 0) }
        var roll = random.int(below: total)
        for choice in choices {
            let weight = weights[choice] ?? 0
            if roll < weight { return choice }
            roll -= weight
        }
        return nil
    }

    /// The weights as the timeline's first line shows them: what this run favours, and what it leaves out.
    var summary: String {
        let steps = SweepStepKind.allCases.map { kind in
            let factor = Double(kinds[kind] ?? 0) / Double(kind.swarmWeight)
            return "\(kind) ×\(factor == factor.rounded() ? String(Int(factor)) : String(factor))"
        }
        let deletions = Self.reasonOrder.map { "\($0) \(reasons[$0] ?? 0)" }
        return "steps " + steps.joined(separator: ", ") + "; zone deletions " + deletions.joined(separator: ", ")
            + "; the user answers a pause with chance \(answerChance)"
            + "; requests interleaved ×\(interleavingFactor)"
    }
}
