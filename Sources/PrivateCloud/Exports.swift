// The one type of the SQLite layer in this module's public API, re-exported on purpose so that `import PrivateCloud`
// can name it: `FileContainer(…, durability:)`. The rest of that layer is `package`.
@_exported public import enum PrivateSyncSQLite.Durability
