// Re-exported on purpose: every container takes its clock (`clock: any WallClock`), and a test or simulation hands
// it a `ManualClock` and seeds with `SplitMix64`, so `import PrivateCloud` names them.
@_exported public import PrivateSyncDeterminism

// The two types of the SQLite layer in this module's public API, re-exported on purpose so that `import PrivateCloud`
// can name them: `FileContainer(…, durability:)` and the memo of checked files that `verifyIntegrity` may share
// (`FileContainer(…, verificationMemo:)`, `ContainerFile.read(_:verificationMemo:)`). The rest of that layer is
// `package`.
@_exported public import enum PrivateSyncSQLite.Durability
@_exported public import class PrivateSyncSQLite.VerificationMemo
