/// Which table a run draws its steps from. A seed replays a run step for step only under the table it was found
/// with: a test pinned to the seed of an earlier sweep names that table, so that a new kind of step does not take
/// its path away.
public enum SimulationStepTable: Sendable, Hashable {
    /// Every kind of step (docs/simulator.md, "One run").
    case current
    /// The table before "a record deleted and made again": its share went to "sync when asked".
    case beforeDeleteAndMakeAgain
}
