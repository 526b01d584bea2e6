// Re-exported on purpose: the demo schema is a `SyncPartition`, so `import DemoSchema` names the store's types too.
@_exported public import DeviceStore
