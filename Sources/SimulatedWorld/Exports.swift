// Re-exported on purpose: a world is made of the engine's apps, the store's devices and the container's accounts,
// so `import SimulatedWorld` names them too.
@_exported public import PrivateSync
// The pages' escaping and frame, which the world page, the CLI's and the simulator's timeline build on.
@_exported public import PrivateSyncHTML
