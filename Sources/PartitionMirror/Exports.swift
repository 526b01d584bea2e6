// Re-exported on purpose: the mirror's API is written in the engine's types (PSSyncEngine, its events) and the
// store's (RecordStore, ModelType, StoredRecord), so `import PartitionMirror` names them too.
@_exported public import DeviceStore
@_exported public import PrivateSyncEngine
