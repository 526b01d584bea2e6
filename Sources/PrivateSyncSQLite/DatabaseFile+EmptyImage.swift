import PrivateSyncFileSystem
import Synchronization

extension DatabaseFile {
    /// The bytes of a new, empty file of each format this process has created, by ``emptyImageKey(of:)``.
    ///
    /// A new file is built once per format and process, with a connection that compiles every statement of its
    /// schema; later files of the format are those same bytes, written and made durable: a write and a sync instead
    /// of a connection, a dozen statements and a switch of journal mode. Every file a device's first launch, a
    /// reinstall or a fresh start creates is one, which cost the simulator 4% of its time (`make bench`,
    /// `simulated_speedup`). The bytes are the file SQLite built, unchanged, so nothing can tell the two apart.
    private static let emptyImages = Mutex<[String: [UInt8]]>([:])

    /// What identifies a format's empty file: everything that goes into it.
    private static func emptyImageKey(of format: DatabaseFormat) -> String {
        "\(format.applicationID) \(format.version) \(format.pageSize ?? 0)\n" + format.schema.joined(separator: "\n;\n")
    }

    /// The bytes of an empty file of `format`, if this process has built one.
    static func emptyImage(of format: DatabaseFormat) -> [UInt8]? {
        let key = emptyImageKey(of: format)
        return emptyImages.withLock { $0[key] }
    }

    /// Remembers the file at `path`, just built for `format` and holding nothing else, as its empty image. A file
    /// that cannot be read, or does not look like a whole SQLite file, is not remembered.
    static func rememberEmptyImage(of format: DatabaseFormat, from path: String) {
        guard let bytes = try? FileSystem.read(path), bytes.count >= 512, bytes.count % (format.pageSize ?? 4096) == 0,
            bytes.starts(with: Array("SQLite format 3\u{0}".utf8))
        else { return }
        let key = emptyImageKey(of: format)
        emptyImages.withLock { $0[key] = bytes }
    }
}
