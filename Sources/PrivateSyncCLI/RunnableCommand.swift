import ArgumentParsing

/// A command of `privatesync` that runs: its declared arguments and options arrive typed, and ``run(_:)`` does the
/// work.
protocol RunnableCommand: ParsableCommand {
    /// Runs the command.
    ///
    /// On the main actor, where `main` starts, so that a command that never awaits (most of them) runs on the main
    /// thread and the process never starts the concurrency runtime's worker threads: that start-up is a measurable
    /// share of a short command's time (docs/benchmarks.md, `status_vs_sqlite3`).
    ///
    /// - Parameter cli: The world's folder, and the steps commands share.
    /// - Returns: The exit code.
    @MainActor func run(_ cli: CLI) async throws -> ExitCode
}
