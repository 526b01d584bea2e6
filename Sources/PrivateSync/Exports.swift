// Re-exported on purpose: the engine's API is written in the device's, the store's and the container's types
// (devices, partitions, stores, records, errors), so `import PrivateSync` names them too.
@_exported public import DeviceSimulation
@_exported public import DeviceStore
@_exported public import PrivateCloud
