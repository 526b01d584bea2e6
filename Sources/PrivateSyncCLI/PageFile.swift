import PrivateSyncFileSystem

/// Where the CLI writes an HTML page (`inspect --html`, `simulate --timeline`): checked first, then written
/// atomically, so a refused or failed write leaves nothing behind.
enum PageFile {
    /// Checks that a page can be written at `path`: not empty, not a folder, in a folder that exists.
    ///
    /// - Parameters:
    ///   - path: The file, as given.
    ///   - option: The option that named it, for messages (`--html`).
    /// - Throws: ``CLIError`` 64 for an empty path, 65 for a folder, 66 for a missing parent folder.
    static func check(_ path: String, option: String) throws(CLIError) {
        guard !path.isEmpty else { throw CLIError(.usage, "\(option) needs a file name; got an empty one") }
        if FileSystem.isDirectory(path) {
            throw CLIError(.dataError, "\(option) names a folder, not a file: \(TextEscaping.name(path))")
        }
        let parent = path.contains("/") ? FileSystem.parentDirectory(of: path) : "."
        guard FileSystem.isDirectory(parent.isEmpty ? "/" : parent) else {
            throw CLIError(
                .noInput, "\(option): the folder \(TextEscaping.name(parent)) does not exist (it is not created)")
        }
    }

    /// Checks that pages can be written into the folder `path` (a sweep's `--timeline DIR`).
    ///
    /// - Parameters:
    ///   - path: The folder, as given.
    ///   - option: The option that named it, for messages.
    /// - Throws: ``CLIError`` 64 for an empty path, 65 for a file, 66 for a folder that does not exist.
    static func checkFolder(_ path: String, option: String) throws(CLIError) {
        guard !path.isEmpty else { throw CLIError(.usage, "\(option) needs a folder name; got an empty one") }
        if FileSystem.exists(path) && !FileSystem.isDirectory(path) {
            throw CLIError(
                .dataError,
                "\(option) with a sweep names a folder for the failing seeds' pages, and \(TextEscaping.name(path)) is a file (give --seed S to write one page)"
            )
        }
        guard FileSystem.isDirectory(path) else {
            throw CLIError(
                .noInput, "\(option): the folder \(TextEscaping.name(path)) does not exist (it is not created)")
        }
    }

    /// Writes a page, atomically (the old file, if any, stays whole until the new one replaces it).
    ///
    /// - Parameters:
    ///   - html: The page.
    ///   - path: The file, already checked by ``check(_:option:)``.
    /// - Throws: ``CLIError`` 74 when the file cannot be written.
    static func write(_ html: String, to path: String) throws(CLIError) {
        do {
            try FileSystem.writeAtomically(Array(html.utf8), to: path, permissions: 0o644)
        } catch {
            throw CLIError(.ioError, "cannot write \(TextEscaping.name(path))", underlying: error)
        }
    }
}
