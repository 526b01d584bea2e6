import Foundation
import Testing

/// `inspect --html FILE` and `simulate --timeline FILE` replace FILE atomically only when it is a regular file (or
/// none): `-` prints to standard output, a FIFO or a character device is written through and keeps its node, and a
/// symbolic link keeps its place while the file it names is replaced. (Run as root, `--html /dev/full` once renamed
/// an HTML file over the machine's `/dev/full`; the test uses a FIFO of its own instead of a device node, so that a
/// regression could not harm the machine.)
@Suite("CLI: where a page is written")
struct CLIPageFileTests {
    static func isFIFO(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
    }

    @Test("--html - prints the page, and only the page, on standard output")
    func dashIsStandardOutput() throws {
        let cli = try CLIRunner.world(launching: "A")
        let run = try cli.ok("inspect", "--html", "-")
        #expect(run.standardOutput.hasPrefix("<!DOCTYPE html>"))
        #expect(run.standardOutput.hasSuffix("</html>\n"), "nothing follows the page")
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/-"))
    }

    @Test("a FIFO is written through and stays a FIFO; a timeline to it too")
    func fifoIsWrittenThrough() throws {
        let cli = try CLIRunner.world(launching: "A")
        let fifo = cli.home + ".fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        for arguments in [
            ["inspect", "--html", fifo], ["simulate", "--seed", "1", "--steps", "10", "--timeline", fifo],
        ] {
            let reader = Process()
            reader.executableURL = URL(fileURLWithPath: "/bin/cat")
            reader.arguments = [fifo]
            let output = Pipe()
            reader.standardOutput = output
            try reader.run()
            try cli.ok(arguments)
            let page = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            reader.waitUntilExit()
            #expect(page.hasPrefix("<!DOCTYPE html>"), "\(arguments)")
            #expect(Self.isFIFO(fifo), "\(arguments): the FIFO was replaced")
        }
    }

    @Test("a symbolic link keeps its place; the file it names is replaced")
    func linkKeepsItsPlace() throws {
        let cli = try CLIRunner.world(launching: "A")
        let target = cli.home + ".target.html"
        let link = cli.home + ".link.html"
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try cli.ok("inspect", "--html", link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
    }
}
