import PrivateSyncFileSystem
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A folder lock with a bounded wait fails as busy while another holder keeps it, and is had once it is released;
/// the leftovers of atomic writes killed before their rename are removed, and nothing else is.
@Suite("File system: bounded folder locks and killed writes' leftovers")
struct FolderLockWaitTests {
    @Test(
        "a bounded exclusive lock on a folder another holder keeps fails as busy after its wait, and is had once it is released",
        arguments: [Int32(0), 1, 30])
    func boundedWaitFailsAsBusy(milliseconds: Int32) throws {
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "lock-wait")
        defer { try? FileSystem.removeItem(folder) }
        // flock locks belong to the open file description: a second lock in this process conflicts as another
        // process's would.
        let holder = try FileLock.exclusive(folder)
        let refused = #expect(throws: FileSystemError.self) {
            try FileLock.exclusive(folder, waitingAtMost: milliseconds)
        }
        #expect(refused?.isLockHeld == true, "\(String(describing: refused))")
        #expect(refused.map(PrivateSyncFileSystem.isBusy) == true)
        #expect(refused?.description.contains("locked by another holder") == true)
        holder.unlock()
        let had = try FileLock.exclusive(folder, waitingAtMost: milliseconds)
        #expect(try FileLock.exclusiveIfFree(folder) == nil, "the lock is held")
        had.unlock()
    }

    @Test("a bounded lock on a folder that is not there fails as a missing folder, not as busy")
    func boundedWaitOnAMissingFolder() throws {
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "lock-wait")
        defer { try? FileSystem.removeItem(folder) }
        let refused = #expect(throws: FileSystemError.self) {
            try FileLock.exclusive(folder + "/gone", waitingAtMost: 10)
        }
        #expect(refused?.isNotFound == true && refused?.isLockHeld == false, "\(String(describing: refused))")
    }

    @Test("the temporary files killed atomic writes of a file left are removed; the file and everything else stay")
    func killedWritesLeftoversAreRemoved() throws {
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "leftovers")
        defer { try? FileSystem.removeItem(folder) }
        let path = folder + "/bookkeeping.json"
        try FileSystem.writeAtomically(Array("{}".utf8), to: path)
        // Two writes killed before their rename (another process's and this one's), and what is not theirs.
        let leftovers = ["bookkeeping.json.tmp-4242-7", FileSystem.uniqueName("bookkeeping.json.tmp-")]
        let others = ["other.json.tmp-4242-7", "bookkeeping.json.tmp", "bookkeeping.jsonx.tmp-1-1", "bookkeeping.json"]
        for name in leftovers + others where name != "bookkeeping.json" {
            try FileSystem.writeAtomically(Array("half".utf8), to: folder + "/" + name)
        }
        try FileSystem.createDirectory(folder + "/bookkeeping.json.tmp-9-9")
        #expect(try FileSystem.removeTemporaries(leftBy: path) == 2)
        #expect(try FileSystem.contents(ofDirectory: folder) == (others + ["bookkeeping.json.tmp-9-9"]).sorted())
        #expect(try FileSystem.read(path) == Array("{}".utf8))
        #expect(try FileSystem.removeTemporaries(leftBy: path) == 0, "nothing is left to remove")
    }
}
