// The fake container every engine runs over: a team builds a `PSDatabase` from a `MemoryContainer` or a
// `FileContainer` and an `AccountSession`, so those names come with this module.
@_exported public import PrivateCloud
