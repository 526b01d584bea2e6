import PrivateSyncFileSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TestWorld {
    /// The start of every world folder's name: `privatesync-world-<pid>-XXXXXX`, the pid marking its owner.
    public static let folderPrefix = "privatesync-world"

    /// The folder worlds are made in by default: `$TMPDIR` when set and not empty, else `/tmp`.
    ///
    /// - Returns: The folder, without a trailing `/`.
    public static func temporaryParent() -> String {
        guard var path = ProcessEnvironment.value(of: "TMPDIR") else { return "/tmp" }
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path.isEmpty ? "/tmp" : path
    }

    /// The process that made a world folder, read from its name; `nil` for a name that is not a world folder's.
    ///
    /// - Parameter name: A folder's name (not its path).
    /// - Returns: The owner's process identifier (a `pid_t`, which is an `Int32`).
    public static func owner(ofFolderNamed name: String) -> Int32? {
        guard name.hasPrefix(folderPrefix + "-") else { return nil }
        let parts = name.dropFirst(folderPrefix.count + 1).split(separator: "-")
        guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0 else { return nil }
        return pid
    }

    /// Removes the world folders that processes no longer running left in `parent`: what an exit test's child (or
    /// a crashed test process) could not remove itself. Every `TestWorld` does this when it is made; call it after
    /// an exit test to clean up at once. Folders of running processes, and folders with other names, are left.
    ///
    /// - Parameter parent: The folder to clean; ``temporaryParent()`` by default.
    /// - Returns: The folders removed.
    @discardableResult
    public static func removeLeftovers(in parent: String = temporaryParent()) -> [String] {
        guard let names = try? FileSystem.contents(ofDirectory: parent) else { return [] }
        var removed: [String] = []
        for name in names {
            guard let owner = owner(ofFolderNamed: name), owner != getpid(), kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            if (try? FileSystem.removeItem(parent + "/" + name)) != nil { removed.append(parent + "/" + name) }
        }
        return removed.sorted()
    }
}
