public import PartitionMirror

/// An object that fronts a ``PartitionMirror`` as its engine's delegate, passing the events on (a test's flawed
/// delegate, which drops or changes some): ``SweptPartitionMirror/sweep(configuration:front:)`` makes one per launch.
public protocol SweptPartitionMirrorFront: PSSyncEngineDelegate {
    /// Gives the front the mirror it fronts, once the launch made it.
    ///
    /// - Parameter mirror: The mirror.
    func attach(_ mirror: PartitionMirror)
}
