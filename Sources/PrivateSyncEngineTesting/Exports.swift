@_exported public import PrivateCloudFaults
@_exported public import PrivateSyncEngine
