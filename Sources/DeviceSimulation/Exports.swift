// Re-exported on purpose: a device is described in the store's and the container's vocabulary (its App Group
// lease, its account session, its entitlements), so `import DeviceSimulation` names them too.
@_exported public import DeviceStore
