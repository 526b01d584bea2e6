import ArgumentParsing
import SimulatedWorld

extension CLI {
    /// `inspect --html FILE`: a page of the whole world (``WorldPage``), written to FILE.
    ///
    /// - Returns: Success, once the page is written.
    /// - Throws: ``CLIError`` 64 with `--device` or `--json`, or an empty FILE; what ``PageFile`` refuses; what
    ///   opening and reading the world throws.
    func inspectHTML() throws -> ExitCode {
        let path = command.option("html") ?? ""
        guard command.option("device") == nil else {
            throw CLIError(.usage, "--html shows the whole world: give it without --device")
        }
        guard !json else { throw CLIError(.usage, "give --html or --json, not both") }
        try PageFile.check(path, option: "--html")
        let world = try world()
        let overview = try world.overview()
        try PageFile.write(WorldPage.render(overview, home: home), to: path)
        Terminal.line(
            "Wrote the world page (\(overview.devices.count) device(s), \(overview.accounts.count) account(s)) to \(path)"
        )
        return .success
    }
}
