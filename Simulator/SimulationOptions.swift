import DeviceStore
public import PrivateCloud
public import PrivateSync
public import SimulatedWorld

/// What one simulated run looks like. Everything not given is drawn from the seed.
public struct SimulationOptions: Sendable {
    /// The seed: it fixes every choice of the run.
    public var seed: UInt64
    /// How many devices (1 to 4); drawn from the seed when `nil`.
    public var devices: Int?
    /// How many steps before the heal phase.
    public var steps: Int
    /// Where the accounts' databases live: memory (the default, fast) or SQLite files.
    public var backend: ContainerBackend
    /// Whether to keep every step's line (for `--trace`), not only the last ones.
    public var keepFullTrace: Bool
    /// Test doubles that put known bugs in a run's container, status or crash recovery, proving the invariants can
    /// catch them (the engine's own known bugs are mutants: `make mutants`).
    public var hooks: SimulationHooks
    /// The table the steps are drawn from: the current one, or an earlier one a pinned seed was found with.
    public var stepTable: SimulationStepTable
    /// What syncs every device's user-created store: the app's own engine (the default), or CKSyncEngine with the
    /// app as its delegate (`PartitionMirror`, as `device add --engine cksyncengine` installs it). The run draws the
    /// same steps either way; the checks that read the app engine's own report and totals hold only on its build.
    public var build: AppSyncEngine

    /// Creates options.
    public init(
        seed: UInt64, devices: Int? = nil, steps: Int = SimulationOptions.defaultSteps,
        backend: ContainerBackend = .memory,
        keepFullTrace: Bool = false, hooks: SimulationHooks = SimulationHooks(),
        stepTable: SimulationStepTable = .current, build: AppSyncEngine = .appEngine
    ) {
        self.seed = seed
        self.devices = devices
        self.steps = steps
        self.backend = backend
        self.keepFullTrace = keepFullTrace
        self.hooks = hooks
        self.stepTable = stepTable
        self.build = build
    }

    /// Steps in the default run: with an average of 432 simulated seconds between steps, a simulated day.
    public static let defaultSteps = 200
}

/// Seams through which a test puts a faulty double in a run (a container, a status source, a crash recovery), to show
/// the simulator catches it. The engine and the stores have no such seam: their known bugs are source mutants,
/// applied to a scratch copy by `make mutants` (docs/simulator.md).
public struct SimulationHooks: Sendable {
    /// Wraps every container a device opens (outside the fault injection), as a buggy network layer would.
    public var wrapContainer: (@Sendable (_ container: any PrivateContainer, _ device: String) -> any PrivateContainer)?
    /// Replaces the status a device's settings screen shows, as a buggy status source would.
    public var status: (@Sendable (_ app: LaunchedApp) throws -> SyncStatus)?
    /// Runs right after a device crashed, before its relaunch: a buggy store could lose state here.
    public var afterCrash: (@Sendable (_ app: LaunchedApp) -> Void)?
    /// No doubles: the run as it ships.
    public init(
        wrapContainer: (@Sendable (any PrivateContainer, String) -> any PrivateContainer)? = nil,
        status: (@Sendable (LaunchedApp) throws -> SyncStatus)? = nil,
        afterCrash: (@Sendable (LaunchedApp) -> Void)? = nil
    ) {
        self.wrapContainer = wrapContainer
        self.status = status
        self.afterCrash = afterCrash
    }
}
