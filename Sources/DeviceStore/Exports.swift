// Re-exported on purpose. The store is built on the container's vocabulary (records, zones, field values), so
// `import DeviceStore` names them too; `FileSystemError` is the typed throw of the first trap's fix,
// `AppGroupContainer.createApplicationSupport()`; and `CodedError` is the shape of every domain's error
// (`StoreError`, `DeviceError`, `SchemaError`, and those of the modules above). The rest of the file-system layer is
// `package`.
@_exported public import PrivateCloud

@_exported public import struct PrivateSyncFileSystem.CodedError
@_exported public import struct PrivateSyncFileSystem.FileSystemError
