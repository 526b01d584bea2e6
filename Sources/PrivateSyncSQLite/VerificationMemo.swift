import PrivateSyncFileSystem
package import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Remembers which states of database files passed `PRAGMA integrity_check`, so that a file is checked page by page
/// once per change rather than at every open (`make bench`, `status_vs_sqlite3`); and which passed a check of
/// their content that their format defines (a device store's value ranges), each check under a name of its own.
///
/// A state is the file's and its write-ahead log's identity (device and inode), size, modification time to the
/// nanosecond (and the database file's change time), and their headers (the database's first 100 bytes, the log's
/// first 32: change counter, page count, salts, checkpoint sequence). Anything that writes to the database file,
/// SQLite or a hand with an editor, moves its change time, which no one can set back, and anything that writes to
/// the log moves its modification time; so a file changed after its check no longer matches what was remembered,
/// and is checked again. (The log's change time is left out: SQLite, run as root, gives the log its database's owner
/// at every opening, which moves it with nothing changed.)
///
/// A state is remembered only when it was stable for the whole check and every time in it is older than the
/// (coarse) clock when the check began: a write in the same clock tick as the last one, which the file system
/// might stamp with the same time, can then only come after the check, and so is stamped later.
///
/// The memo is a cache, never the only guard: a memo file that is unreadable, damaged (its checksum does not
/// match), of another version, or too large is ignored and rewritten, and losing it costs one check per file. It
/// is written atomically (a temporary file renamed over it), owner-only, and never where its folder is read-only.
/// Its checksum catches damage, not a forger; whoever can forge it can edit the database files too.
public final class VerificationMemo: Sendable {
    /// The memo file.
    public let path: String
    /// How many page-by-page checks were run with this memo (those it spared are not counted).
    package let checksRun = Atomic<Int>(0)

    /// The most files remembered; the oldest are forgotten first.
    static let capacity = 512
    /// The first line of a memo file.
    static let magic = "privatesync-verified 1"

    /// A memo kept in the file at `path` (which need not exist yet).
    public init(path: String) {
        self.path = path
    }

    /// What a database file looks like now, as a memo compares it.
    package struct State: Equatable {
        let text: String
        /// The latest modification or change time of the file and its log (seconds, nanoseconds).
        let latest: (Int, Int)

        package static func == (lhs: State, rhs: State) -> Bool { lhs.text == rhs.text }
    }

    /// The state of `databasePath` and its write-ahead log, or `nil` when it cannot be read.
    ///
    /// The files' identities, sizes and times come from `stat`, and their headers through the files SQLite holds
    /// open for `connection`: a descriptor of ours on the database would drop this process's locks on it when
    /// closed (see `Connection+FileAccess.swift`).
    ///
    /// - Parameters:
    ///   - databasePath: The database file.
    ///   - connection: An open connection to it, which has read it (so that SQLite has its log open too).
    /// - Returns: The state, or `nil` when the file cannot be read.
    package static func state(of databasePath: String, through connection: Connection) -> State? {
        guard let info = status(databasePath), let start = try? connection.mainFileStart(count: 100) else {
            return nil
        }
        let file = fileState(info, header: start.bytes, withChangeTime: true)
        // SQLite, run as root, gives the log its database's owner at every opening, which moves the log's change
        // time though nothing changed: the log is known by its size, modification time and header instead.
        // An empty log holds nothing: it counts as none, whether SQLite has made it yet or deleted it already.
        let log = status(databasePath + "-wal").flatMap { info in
            info.st_size == 0
                ? nil
                : fileState(
                    info, header: (try? connection.logFileStart(count: 32))??.bytes ?? [], withChangeTime: false)
        }
        let logLatest = log?.latest ?? (0, 0)
        return State(
            text: file.text + " wal " + (log?.text ?? "none"), latest: file.latest < logLatest ? logLatest : file.latest
        )
    }

    /// `stat` of `path`, not following a final link; `nil` when it fails.
    private static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    private static func fileState(
        _ info: stat, header: [UInt8], withChangeTime: Bool
    ) -> (text: String, latest: (Int, Int)) {
        #if canImport(Darwin)
            let (modifiedTime, changedTime) = (info.st_mtimespec, info.st_ctimespec)
        #else
            let (modifiedTime, changedTime) = (info.st_mtim, info.st_ctim)
        #endif
        let modified = (Int(modifiedTime.tv_sec), Int(modifiedTime.tv_nsec))
        let changed = withChangeTime ? (Int(changedTime.tv_sec), Int(changedTime.tv_nsec)) : modified
        let text =
            "\(info.st_dev):\(info.st_ino) \(info.st_size) \(modified.0).\(modified.1) \(changed.0).\(changed.1) "
            + hex(header[...])
        return (text, modified < changed ? changed : modified)
    }

    private static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The coarse real-time clock, which file times are stamped from, in seconds and nanoseconds.
    package static func coarseNow() -> (Int, Int) {
        var now = timespec()
        #if canImport(Glibc)
            clock_gettime(CLOCK_REALTIME_COARSE, &now)
        #elseif canImport(Darwin)
            // Darwin has no coarse clock; its real-time clock is the one file times are stamped from.
            clock_gettime(CLOCK_REALTIME, &now)
        #endif
        return (Int(now.tv_sec), Int(now.tv_nsec))
    }

    // MARK: The memo file

    /// Whether `state` of `databasePath` passed the check `kind`: `integrity` (`PRAGMA integrity_check`, which
    /// ``DatabaseFile`` runs; memos of the weaker `quick_check`, kind `pages`, no longer count), or a check of the
    /// file's content its format defines (a store's value ranges).
    package func isVerified(_ databasePath: String, _ state: State, kind: String = "integrity") -> Bool {
        entries()[kind + ":" + databasePath] == state.text
    }

    /// Remembers that `state` of `databasePath` passed the check `kind`, which began at `checkStart`
    /// (``coarseNow()``), unless the state is too recent to tell apart from a write in the same tick, or the memo
    /// cannot be written.
    package func record(_ databasePath: String, _ state: State, kind: String = "integrity", checkStart: (Int, Int)) {
        guard state.latest < checkStart, !databasePath.contains("\n"), !databasePath.contains("\t") else { return }
        let databasePath = kind + ":" + databasePath
        let folder = FileSystem.parentDirectory(of: path)
        guard DatabaseFile.isWritable(folder), !FileSystem.exists(path) || DatabaseFile.isWritable(path) else {
            return
        }
        var order = entryOrder()
        order.removeAll { $0.path == databasePath }
        order.append((databasePath, state.text))
        if order.count > Self.capacity { order.removeFirst(order.count - Self.capacity) }
        var body = Self.magic + "\n"
        for (file, text) in order { body += text + "\t" + file + "\n" }
        let bytes = Array(body.utf8)
        let checksum = Self.checksum(bytes)
        try? FileSystem.writeAtomically(bytes + Array("checksum \(checksum)\n".utf8), to: path, permissions: 0o600)
    }

    private func entries() -> [String: String] {
        var result: [String: String] = [:]
        for (file, text) in entryOrder() { result[file] = text }
        return result
    }

    /// The memo's entries, oldest first; none when the file is missing, too large, or not a sound memo.
    private func entryOrder() -> [(path: String, text: String)] {
        guard let bytes = try? FileSystem.read(path), bytes.count < 4 << 20, bytes.last == UInt8(ascii: "\n") else {
            return []
        }
        // The last line is `checksum <hex>`, of every byte before it.
        let lastLine = (bytes.dropLast().lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
        let body = Array(bytes[0..<lastLine])
        guard bytes[lastLine...].elementsEqual("checksum \(Self.checksum(body))\n".utf8) else { return [] }
        // Lines of `<state>\t<path>`, after the magic line; read as bytes (a memo holds no multi-byte separator).
        let newline = UInt8(ascii: "\n")
        let tab = UInt8(ascii: "\t")
        guard let firstEnd = body.firstIndex(of: newline), body[..<firstEnd].elementsEqual(Self.magic.utf8) else {
            return []
        }
        var entries: [(path: String, text: String)] = []
        var start = firstEnd + 1
        while start < body.count {
            guard let end = body[start...].firstIndex(of: newline),
                let separator = body[start..<end].firstIndex(of: tab)
            else { return [] }
            entries.append(
                (
                    String(decoding: body[(separator + 1)..<end], as: UTF8.self),
                    String(decoding: body[start..<separator], as: UTF8.self)
                ))
            start = end + 1
        }
        return entries
    }

    /// FNV-1a over the memo's body, in hex.
    private static func checksum(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
