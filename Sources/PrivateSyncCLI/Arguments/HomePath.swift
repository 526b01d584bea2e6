import DeviceSimulation
import DeviceStore
import PrivateCloud
import PrivateSyncFileSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The world's folder as the CLI names it, and the longest one a world can live in.
///
/// Normalized: absolute, with no `.` or `..` component and no repeated or trailing `/`, so that `--home w/`,
/// `--home ./w` and `--home /x/w` name one world in one spelling (in messages too). `..` is removed by name, as
/// `cd` does, not by following a symbolic link back out.
enum HomePath {
    /// The longest path SQLite opens a database at: its unix VFS allows 512 bytes, less 8 kept for the name of the
    /// database's `-journal` (`sqlite3PagerOpen` refuses a longer path with `SQLITE_CANTOPEN`; measured on SQLite
    /// 3.40: 504 bytes open, 505 do not).
    static let sqlitePathLimit = 504
    /// The longest name of one path component the OS allows (`NAME_MAX`).
    static let componentLimit = 255
    /// The most archive stores one device is assumed to keep (one per `account start-fresh`), for the length of
    /// the longest archive's name.
    static let archiveIndexDigits = 6

    /// Normalizes a world's folder.
    ///
    /// - Parameter path: The folder as given (`--home` or `$PRIVATESYNC_HOME`), relative to the working folder or
    ///   absolute.
    /// - Returns: The absolute path, without `.`, `..`, repeated or trailing `/`.
    /// - Throws: ``CLIError`` 64 for an empty path.
    static func normalize(_ path: String) throws(CLIError) -> String {
        guard !path.isEmpty else {
            throw CLIError(.usage, "the world's folder (--home or $PRIVATESYNC_HOME) is empty; name a folder")
        }
        var components: [Substring] = []
        for component in FileSystem.absolute(path).split(separator: "/") {
            switch component {
            case ".": continue
            case "..": if !components.isEmpty { components.removeLast() }
            default: components.append(component)
            }
        }
        // Joined by hand, each part made a `String` first: `joined(separator:)` or appending a substring casts it at
        // run time, a search through every protocol conformance in the binary at every command (`make bench`,
        // `status_vs_sqlite3`).
        guard !components.isEmpty else { return "/" }
        var joined = ""
        for component in components {
            joined.append("/")
            joined.append(String(component))
        }
        return joined
    }

    /// The longest path, below the world's folder, of a database file a world with this container can come to
    /// hold: a device's archive store (`account start-fresh`, with the suffix it carries while written or once
    /// restored) or an account's container file, for the longest device and account names allowed (64 characters
    /// each).
    ///
    /// - Parameter identifier: The world's container identifier, which names every container file.
    /// - Returns: The length in bytes, from the `/` after the world's folder.
    static func longestDatabaseSuffix(identifier: ContainerIdentifier) -> Int {
        let longestName = String(repeating: "n", count: 64)
        // The device's App Group folder is `<device>/AppGroup` (SimulatedDevice); archives are named by
        // LaunchedApp as `UserCreated-<user record name>-<index>.store`.
        let appGroup = AppGroupContainer(path: "/devices/" + longestName + "/AppGroup")
        let userRecordName = (try? AccountID(longestName))?.userRecordID.recordName ?? ""
        // An archive is written as `<name>.partial` (RecordStore+Archive) and, once restored, renamed
        // `<name>.restored` (LaunchedApp); the longer of the two counts.
        let archive =
            appGroup.archives + "/UserCreated-" + userRecordName + "-"
            + String(repeating: "9", count: archiveIndexDigits) + ".store" + ".restored"
        let container =
            (try? AccountID(longestName)).map {
                FileContainer.databasePath(cloudRoot: "/cloud", account: $0, identifier: identifier)
            } ?? ""
        return max(archive.utf8.count, container.utf8.count)
    }

    /// Refuses a world's folder too long for every file the world will hold to open.
    ///
    /// - Parameters:
    ///   - home: The normalized folder.
    ///   - identifier: The world's container identifier.
    /// - Throws: ``CLIError`` 65 stating the limit, when the folder (with its symbolic links resolved, as SQLite
    ///   resolves them) plus the longest file below it would pass ``sqlitePathLimit``, or one of its names is
    ///   longer than ``componentLimit``.
    static func checkLength(of home: String, identifier: ContainerIdentifier) throws(CLIError) {
        if let long = home.split(separator: "/").first(where: { $0.utf8.count > componentLimit }) {
            throw CLIError(
                .dataError,
                "the world's folder has a name of \(long.utf8.count) bytes ('\(TextEscaping.escape(long.prefix(40)))...'); the system allows at most \(componentLimit)"
            )
        }
        let resolved = resolvingLinks(home)
        let allowed = sqlitePathLimit - longestDatabaseSuffix(identifier: identifier)
        guard resolved.utf8.count > allowed else { return }
        let length =
            resolved == home
            ? "\(home.utf8.count) bytes long" : "\(resolved.utf8.count) bytes long once its links are resolved"
        throw CLIError(
            .dataError,
            "the world's folder \(home) is \(length); at most \(allowed) are allowed, so that its longest file (a "
                + "device's archive store, or a container file of \(identifier)) stays within the \(sqlitePathLimit) "
                + "bytes SQLite allows for a database's path")
    }

    /// `path` with the symbolic links of its longest existing ancestor resolved (`realpath`), the rest as given.
    private static func resolvingLinks(_ path: String) -> String {
        var head = path
        var tail = ""
        while true {
            if let real = realpath(head, nil) {
                defer { free(real) }
                let resolved = String(cString: real)
                return (resolved == "/" ? "" : resolved) + tail
            }
            guard head != "/", let slash = head.lastIndex(of: "/") else { return path }
            tail = String(head[slash...]) + tail
            head = slash == head.startIndex ? "/" : String(head[..<slash])
        }
    }
}
