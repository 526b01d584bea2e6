// Re-exported on purpose: a fault is described in the container's own vocabulary (calls, records, zones,
// `CloudError`), so `import PrivateCloudFaults` names them too.
@_exported public import PrivateCloud
