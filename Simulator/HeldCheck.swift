/// What invariant 3's first half ("every record written on a device and not deleted is still on it") reads after a
/// step: the names each store of the device holds, the names written there, and the names deleted anywhere.
///
/// The check is a pure function of these four sets, and most steps change none of them: the simulator keeps the
/// last one that passed and, when a step leaves every set as it was, counts the same checks again without looking
/// each name up (the sets are compared by identity first, which a step that changed nothing keeps, since a set held
/// here is copied on its next write).
struct HeldCheck {
    /// The names the user-created store holds.
    let userCreated: Set<String>
    /// The names the local-only store holds.
    let localOnly: Set<String>
    /// The names written on the device that it must still hold, unless deleted.
    let expected: Set<String>
    /// The names deleted anywhere.
    let deleted: Set<String>

    /// Whether the device holds `name` in either store.
    func isHeld(_ name: String) -> Bool {
        userCreated.contains(name) || localOnly.contains(name)
    }

    /// Whether every expected name is held or deleted: the invariant holds.
    var everyExpectedNameIsHeld: Bool {
        expected.allSatisfy { deleted.contains($0) || isHeld($0) }
    }

    /// How many names the check covers: the expected ones not deleted.
    var checkedCount: Int {
        expected.count { !deleted.contains($0) }
    }

    /// Whether `other` read the very same sets.
    func hasSameSets(as other: HeldCheck) -> Bool {
        userCreated == other.userCreated && localOnly == other.localOnly && expected == other.expected
            && deleted == other.deleted
    }
}
