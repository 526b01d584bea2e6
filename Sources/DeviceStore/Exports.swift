// Re-exported on purpose. The store is built on the container's vocabulary (records, zones, field values), so
// `import DeviceStore` names them too; and `FileSystemError` is the typed throw of the first trap's fix,
// `AppGroupContainer.createApplicationSupport()`. The rest of the file-system layer is `package`.
@_exported public import PrivateCloud

@_exported public import struct PrivateSyncFileSystem.FileSystemError
