import Testing

@testable import Simulator

/// Invariant 3's held-records check, kept between steps: it passes exactly when every expected name is held or
/// deleted, counts the expected names not deleted, and is reused only for the very same sets.
@Suite("Simulator: the held-records check")
struct HeldCheckTests {
    static func check(
        user: Set<String> = ["a", "b"], local: Set<String> = ["c"], expected: Set<String> = ["a", "c", "d"],
        deleted: Set<String> = ["d"]
    ) -> HeldCheck {
        HeldCheck(userCreated: user, localOnly: local, expected: expected, deleted: deleted)
    }

    @Test("it passes when every expected name is held in either store or deleted, and counts those not deleted")
    func passesWhenEveryNameIsHeldOrDeleted() {
        let held = Self.check()
        #expect(held.everyExpectedNameIsHeld)
        #expect(held.checkedCount == 2)
        #expect(held.isHeld("a") && held.isHeld("c") && !held.isHeld("d"))
        let lost = Self.check(user: ["b"])
        #expect(!lost.everyExpectedNameIsHeld)
        #expect(!Self.check(deleted: []).everyExpectedNameIsHeld)
    }

    @Test(
        "a kept check is reused only when all four sets are equal, however they were built",
        arguments: [
            (check(), true),
            // Equal sets in new storage (a store read again after a write that changed no name) still match.
            (check(user: Set(["b", "a"]), expected: Set(["d", "c", "a"])), true),
            (check(user: ["a"]), false), (check(local: []), false), (check(expected: ["a", "c"]), false),
            (check(deleted: ["d", "e"]), false),
        ])
    func reusedOnlyForTheSameSets(other: HeldCheck, same: Bool) {
        #expect(Self.check().hasSameSets(as: other) == same)
    }
}
