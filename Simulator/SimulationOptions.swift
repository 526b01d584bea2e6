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
    /// Test doubles to plant known bugs, proving the invariants can catch them.
    public var hooks: SimulationHooks

    /// Creates options.
    public init(
        seed: UInt64, devices: Int? = nil, steps: Int = SimulationOptions.defaultSteps,
        backend: ContainerBackend = .memory,
        keepFullTrace: Bool = false, hooks: SimulationHooks = SimulationHooks()
    ) {
        self.seed = seed
        self.devices = devices
        self.steps = steps
        self.backend = backend
        self.keepFullTrace = keepFullTrace
        self.hooks = hooks
    }

    /// Steps in the default run: with an average of 432 simulated seconds between steps, a simulated day.
    public static let defaultSteps = 200
}

/// Seams through which a test plants a bug in a run, to show the simulator catches it.
public struct SimulationHooks: Sendable {
    /// Wraps every container a device opens (outside the fault injection), as a buggy network layer would.
    public var wrapContainer: (@Sendable (_ container: any PrivateContainer, _ device: String) -> any PrivateContainer)?
    /// Replaces the status a device's settings screen shows, as a buggy status source would.
    public var status: (@Sendable (_ app: LaunchedApp) throws -> SyncStatus)?
    /// Runs right after a device crashed, before its relaunch: a buggy store could lose state here.
    public var afterCrash: (@Sendable (_ app: LaunchedApp) -> Void)?
    /// Bugs planted in the stores and the engine of every device (see `PlantedBug`).
    package var plantedBugs: Set<PlantedBug> = []

    /// No planted bugs.
    public init(
        wrapContainer: (@Sendable (any PrivateContainer, String) -> any PrivateContainer)? = nil,
        status: (@Sendable (LaunchedApp) throws -> SyncStatus)? = nil,
        afterCrash: (@Sendable (LaunchedApp) -> Void)? = nil
    ) {
        self.wrapContainer = wrapContainer
        self.status = status
        self.afterCrash = afterCrash
    }

    /// Plants bugs in the stores and the engine of every device.
    ///
    /// - Parameter bugs: The bugs.
    package init(plantedBugs bugs: Set<PlantedBug>) {
        self.init()
        self.plantedBugs = bugs
    }
}
