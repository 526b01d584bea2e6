import PrivateSyncFileSystem
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `FileSystem.name(ofEntryAt:)` reads a directory entry's name from the entry's own bytes: an entry that ends right before
/// an unmapped page is read without touching that page (copying the whole `dirent`, as `contents(ofDirectory:)` did,
/// faulted there).
@Suite("File system: a directory entry's name")
struct DirectoryEntryNameTests {
    @Test("an entry whose record ends at a page's end is read without touching the next page", arguments: [1, 7, 40])
    func entryAtTheEndOfAPage(nameLength: Int) throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        // Two pages, the second made unreadable: what the kernel's buffer of entries followed by nothing looks like.
        let raw = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        let base = try #require(raw != MAP_FAILED ? raw : nil)
        defer { munmap(base, 2 * page) }
        #expect(mprotect(base + page, page, PROT_NONE) == 0)
        let nameOffset = try #require(MemoryLayout<dirent>.offset(of: \dirent.d_name))
        // The record: its header and its name with the NUL, rounded up to 8 bytes, as getdents lays them out.
        let length = (nameOffset + nameLength + 1 + 7) / 8 * 8
        #expect(length < MemoryLayout<dirent>.size, "the record is shorter than the struct")
        let entry = base + page - length
        let name = String(repeating: "n", count: nameLength)
        (entry + nameOffset).withMemoryRebound(to: CChar.self, capacity: nameLength + 1) { bytes in
            for (index, byte) in name.utf8.enumerated() { bytes[index] = CChar(bitPattern: byte) }
            bytes[nameLength] = 0
        }
        #expect(FileSystem.name(ofEntryAt: entry) == name)
    }

    @Test("a folder's names come back whole, of every length up to 240 bytes (an atomic write adds a suffix)")
    func namesOfEveryLength() throws {
        let folder = try FileSystem.makeTemporaryDirectory(prefix: "privatesync-names", in: "/tmp")
        defer { try? FileSystem.removeItem(folder) }
        let names = (1...240).map { String(repeating: "a", count: $0) }
        for name in names { try FileSystem.writeAtomically([], to: folder + "/" + name) }
        #expect(try FileSystem.contents(ofDirectory: folder) == names.sorted())
    }
}
