// Re-exported on purpose: a simulation's options and results are written in the types of every library below it.
@_exported public import PrivateSyncTesting
