import PrivateSyncFileSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The scratch folders of `privatesync simulate`: `privatesync-sim-<pid>-XXXXXX` in `/dev/shm` (or `/tmp`).
///
/// The owning process's id is in the name, so that a folder is known to be stale once its process is gone: each new
/// folder's creation first removes the stale ones of earlier runs (killed by SIGKILL, or by a build without this
/// cleanup). SIGINT and SIGTERM remove this process's folders before the process dies of the signal.
enum ScratchDirectory {
    /// The start of every scratch folder's name.
    static let prefix = "privatesync-sim"

    /// Creates a new scratch folder, after removing the stale ones of dead processes.
    ///
    /// - Parameter parent: The folder to create it in.
    /// - Returns: Its path.
    /// - Throws: ``FileSystemError`` when it cannot be created.
    static func create(in parent: String) throws(FileSystemError) -> String {
        SignalCleanup.installOnce()
        removeStale(in: parent)
        // The cleanup waits for creations in flight, so that a folder made while it looks is not left behind.
        SignalCleanup.creating.add(1, ordering: .sequentiallyConsistent)
        if SignalCleanup.terminating.load(ordering: .sequentiallyConsistent) {
            SignalCleanup.creating.subtract(1, ordering: .sequentiallyConsistent)
            while true { pause() }
        }
        let path: String
        do {
            path = try FileSystem.makeTemporaryDirectory(prefix: "\(prefix)-\(getpid())", in: parent)
        } catch {
            SignalCleanup.creating.subtract(1, ordering: .sequentiallyConsistent)
            throw error
        }
        SignalCleanup.creating.subtract(1, ordering: .sequentiallyConsistent)
        return path
    }

    /// The id of the process that owns a scratch folder of that name, or `nil` when the name carries none (a
    /// folder of an older build).
    static func owner(of name: String) -> pid_t? {
        let parts = name.split(separator: "-")
        guard parts.count == 4, name.hasPrefix(prefix + "-") else { return nil }
        return pid_t(parts[2])
    }

    /// Removes the scratch folders in `parent` whose process is gone. A folder without a process id in its name (an
    /// older build's) is left alone: it may belong to a simulation running now, on a machine several people share.
    static func removeStale(in parent: String) {
        guard let names = try? FileSystem.contents(ofDirectory: parent) else { return }
        for name in names {
            guard let owner = owner(of: name), owner != getpid(), kill(owner, 0) != 0, errno == ESRCH else { continue }
            try? FileSystem.removeItem(parent + "/" + name)
        }
    }

    /// Removes this process's scratch folders in `parent`.
    ///
    /// - Returns: Whether there was any.
    @discardableResult
    static func removeOwn(in parent: String) -> Bool {
        guard let names = try? FileSystem.contents(ofDirectory: parent) else { return false }
        var found = false
        for name in names where owner(of: name) == getpid() {
            found = true
            try? FileSystem.removeItem(parent + "/" + name)
        }
        return found
    }
}

/// Removes the process's scratch folders on SIGINT and SIGTERM, then lets the signal end the process.
///
/// The handler only writes the signal's number to a pipe (`write` is async-signal-safe); a thread of its own reads
/// it, removes the folders (which needs `malloc` and `opendir`, unsafe in a handler) and raises the signal again
/// with its default action, so the process still ends as killed by it.
private enum SignalCleanup {
    /// The pipe's write end, read by the handler; set once, before the handler is installed, then only read.
    /// `nonisolated(unsafe)`: a signal handler cannot capture state, and this `Int32` is written once, before
    /// `sigaction` publishes the handler, and never again.
    nonisolated(unsafe) static var writeEnd: Int32 = -1
    /// Set when a signal arrived and the process is ending.
    static let terminating = Atomic<Bool>(false)
    /// Scratch folders being created now.
    static let creating = Atomic<Int>(0)
    /// Where scratch folders are made.
    #if os(Linux)
        static let parents = ["/dev/shm", "/tmp"]
    #else
        static let parents = ["/tmp"]
    #endif
    /// The installation, run once however many threads make scratch folders (a `static let` is initialized once,
    /// thread-safely).
    private static let installation: Void = install()

    static func installOnce() { installation }

    private static func install() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        writeEnd = ends[1]
        let readEnd = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        readEnd.pointee = ends[0]
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { argument in
                let descriptor = argument!.assumingMemoryBound(to: Int32.self).pointee
                var number: UInt8 = 0
                while read(descriptor, &number, 1) < 0 && errno == EINTR {}
                // New folders are refused from here on (see `ScratchDirectory.create`), then the made ones removed.
                SignalCleanup.terminating.store(true, ordering: .sequentiallyConsistent)
                while SignalCleanup.creating.load(ordering: .sequentiallyConsistent) > 0 { sched_yield() }
                // A simulation still running would create a removed folder again (a file's missing parents) until the
                // process dies: from here on no folder is created, so a folder once removed stays removed. SQLite
                // may still create a file in a folder not yet removed; passes repeat until one finds nothing.
                FileSystem.refuseFolderCreation()
                for _ in 0..<100 {
                    var found = false
                    for parent in SignalCleanup.parents where ScratchDirectory.removeOwn(in: parent) { found = true }
                    if !found { break }
                    sched_yield()
                }
                // This thread inherited its creator's signal mask, which may block the signal: unblock it here, so
                // that raising it again ends the process with it.
                signal(Int32(number), SIG_DFL)
                var mask = sigset_t()
                sigemptyset(&mask)
                sigaddset(&mask, Int32(number))
                pthread_sigmask(SIG_UNBLOCK, &mask, nil)
                raise(Int32(number))
                _exit(128 + Int32(number))
            }, readEnd)
        guard started == 0 else { return }
        for number in [SIGINT, SIGTERM] {
            signal(number) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(SignalCleanup.writeEnd, &byte, 1)
            }
        }
    }
}
