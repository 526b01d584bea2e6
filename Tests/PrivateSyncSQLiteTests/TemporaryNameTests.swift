import PrivateSyncFileSystem
import Testing

/// `FileSystem.uniqueName(_:)` names an atomic write's temporary file; the name must stay short enough that a file
/// of up to 240 bytes can still be written (a decimal counter grew past the file system's 255 bytes once one
/// process had made 10,000 names, and a later test's write failed with ENAMETOOLONG).
@Suite("File system: temporary names")
struct TemporaryNameTests {
    @Test(
        "a temporary name's suffix fits its bound for every process identifier and counter value",
        arguments: [
            (1, 0), (99_999, 9_999), (99_999, 10_000), (4_194_304, 1_679_615), (4_194_304, 1_679_616),
            (4_194_304, Int.max), (4_194_304, -1),
        ])
    func suffixIsBounded(process: Int, count: Int) {
        let name = FileSystem.uniqueName(".tmp-", process: process, count: count)
        #expect(name.hasPrefix(".tmp-"))
        #expect(name.utf8.count - ".tmp-".utf8.count <= FileSystem.longestUniqueSuffix, "\(name)")
    }

    @Test("names made one after another differ until the counter cycles")
    func successiveNamesDiffer() {
        let names = (0..<5_000).map { FileSystem.uniqueName(".tmp-", process: 4_194_304, count: $0) }
        #expect(Set(names).count == names.count)
    }

    @Test("a 240-byte name is written atomically after a million temporary names in this process")
    func longNameAfterManyWrites() throws {
        // A million names: past where a decimal counter made a 255-byte temporary name, whatever the identifier.
        var longest = 0
        for _ in 0..<1_000_000 { longest = max(longest, FileSystem.uniqueName(".tmp-").utf8.count) }
        #expect(longest <= ".tmp-".utf8.count + FileSystem.longestUniqueSuffix)
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "privatesync-temporary-names", in: "/tmp")
        defer { try? FileSystem.removeItem(folder) }
        let path = folder + "/" + String(repeating: "n", count: 240)
        try FileSystem.writeAtomically([1, 2, 3], to: path)
        #expect(try FileSystem.read(path) == [1, 2, 3])
        #expect(try FileSystem.contents(ofDirectory: folder).count == 1)
    }
}
