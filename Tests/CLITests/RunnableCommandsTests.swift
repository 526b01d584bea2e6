import ArgumentParsing
import Testing

@testable import PrivateSyncCLI

/// `RunnableCommands.all` lists every command of the tree that runs, so that the CLI finds it without a cast.
@Suite("CLI: the runnable commands' list")
struct RunnableCommandsTests {
    /// Every command in the tree from `privatesync` down: each one that runs (not only a group of subcommands) is
    /// listed once, and the list holds nothing else.
    @Test func everyRunnableCommandIsListed() {
        var runnable: [ObjectIdentifier] = []
        var stack: [any ParsableCommand.Type] = [PrivateSyncCommand.self]
        while let command = stack.popLast() {
            stack.append(contentsOf: command.configuration.subcommands)
            if command is any RunnableCommand.Type { runnable.append(ObjectIdentifier(command)) }
        }
        let listed = RunnableCommands.all.map { ObjectIdentifier($0) }
        #expect(Set(listed).count == listed.count)
        #expect(Set(listed) == Set(runnable))
    }
}
