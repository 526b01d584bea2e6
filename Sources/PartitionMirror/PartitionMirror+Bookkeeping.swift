import PrivateSyncFileSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension PartitionMirror {
    /// Reads the bookkeeping file; a missing one is a first launch.
    ///
    /// - Parameter path: The file.
    /// - Returns: What it holds.
    /// - Throws: ``MirrorError`` `damagedBookkeeping` for a file that cannot be read or decoded; it is left as it is.
    static func readBookkeeping(at path: String) throws(MirrorError) -> MirrorBookkeeping {
        guard FileSystem.exists(path) else { return MirrorBookkeeping() }
        do {
            let bytes = try FileSystem.read(path)
            let bookkeeping = try JSONDecoder().decode(MirrorBookkeeping.self, from: Data(bytes))
            guard bookkeeping.deletedReportsHeard >= 0, bookkeeping.purgedReportsHeard >= 0 else {
                throw MirrorError(.damagedBookkeeping, "a count of deletions heard is negative")
            }
            return bookkeeping
        } catch {
            throw MirrorError(
                .damagedBookkeeping, "\(path) cannot be read as the mirror's bookkeeping; it was left unchanged",
                underlying: error)
        }
    }

    /// Writes the bookkeeping file whole, in place of the old one (never half of it).
    ///
    /// - Returns: Whether it was written; a failure is kept in ``persistenceErrors``.
    @discardableResult
    func persistBookkeeping() -> Bool {
        // A record whose first save was answered, or fetched, is no longer one whose save may have landed unheard.
        bookkeeping.firstSendMayHaveLanded.formIntersection(bookkeeping.firstSendUnanswered)
        // Killed at this write (a simulation's crash): nothing is written, now or later.
        if crashSwitch?.beforeCommit() == true {
            note(MirrorError(.bookkeepingNotWritten, "\(bookkeepingPath) was not written: the process is down"))
            bookkeepingFileBehind = true
            return false
        }
        // A full disk (a simulation's): nothing is written, and a later write may go through.
        if crashSwitch?.refusesWrite() == true {
            note(
                MirrorError(
                    .bookkeepingNotWritten, "\(bookkeepingPath) was not written: the disk is full (simulated)",
                    underlying: FileSystemError.diskFull(writing: bookkeepingPath)))
            bookkeepingFileBehind = true
            return false
        }
        do {
            try Self.writeBookkeeping(bookkeeping, to: bookkeepingPath, durability: durability)
            bookkeepingFileBehind = false
            return true
        } catch {
            note(
                MirrorError(.bookkeepingNotWritten, "could not write \(bookkeepingPath)", underlying: error))
            bookkeepingFileBehind = true
            return false
        }
    }

    /// Writes a bookkeeping file whole, in place of the old one (never half of it).
    ///
    /// - Parameters:
    ///   - bookkeeping: What to write.
    ///   - path: The file.
    ///   - durability: How much the write survives.
    /// - Throws: What encoding or writing the file throws.
    static func writeBookkeeping(
        _ bookkeeping: MirrorBookkeeping, to path: String, durability: Durability
    ) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(bookkeeping)
        switch durability {
        case .survivesPowerLoss:
            try FileSystem.writeAtomically(Array(data), to: path)
        case .survivesProcessCrash:
            // A new file renamed over the old: a killed process leaves one or the other, whole.
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        }
    }
}
