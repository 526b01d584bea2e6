import Foundation
import Testing

/// Every option and argument of every command given a hostile value: each run ends with its documented code (0 where
/// the value happens to be valid, else 64, 65, 66 or 74, with one `error: ` sentence), never a signal or an internal
/// error, prints no raw control character, and a refusal changes no file of the world.
///
/// `make test` runs a rotating share of the values in each slot (every class still appears); `make torture`
/// (`PRIVATESYNC_TORTURE_HOSTILE=all`) runs every value in every slot. docs/torture.md lists the classes and counts.
@Suite("Torture: hostile inputs")
struct TortureHostileInputTests {
    /// Whether every value runs in every slot.
    static let everyValue = ProcessInfo.processInfo.environment["PRIVATESYNC_TORTURE_HOSTILE"] == "all"

    /// A hostile value: its class, and its bytes (some are not UTF-8, so bytes, not a `String`).
    struct Value: Sendable {
        let name: String
        let bytes: [UInt8]

        init(_ name: String, _ text: String) {
            self.name = name
            self.bytes = Array(text.utf8)
        }

        init(_ name: String, bytes: [UInt8]) {
            self.name = name
            self.bytes = bytes
        }
    }

    static let values: [Value] = [
        // Empty and huge.
        Value("empty", ""), Value("space", " "), Value("10,000 characters", String(repeating: "x", count: 10_000)),
        Value("100,000 characters", String(repeating: "y", count: 100_000)),
        // Numbers out of range, not numbers, not finite.
        Value("negative", "-1"), Value("huge negative", "-99999999999999999999"), Value("zero", "0"),
        Value("overflow", "99999999999999999999999"), Value("not a number", "abc"), Value("NaN", "nan"),
        Value("infinity", "inf"), Value("minus infinity", "-inf"), Value("overflowing exponent", "1e309"),
        Value("hexadecimal", "0x10"), Value("fraction", "1.5"), Value("plus sign", "+1"), Value("padded", " 1 "),
        // Control characters (NUL cannot be passed in an argument).
        Value("newline", "a\nerror: fake"), Value("carriage return", "a\rb"), Value("tab", "a\tb"),
        Value("escape sequence", "\u{1B}[2J\u{1B}]0;title\u{7}"), Value("C0 controls", "\u{1}\u{8}\u{1F}"),
        Value("DEL", "a\u{7F}"), Value("C1 controls", "\u{85}\u{9B}31m"),
        // Invalid UTF-8.
        Value("invalid byte", bytes: [0x61, 0xFF]), Value("overlong NUL", bytes: [0xC0, 0x80]),
        Value("surrogate", bytes: [0xED, 0xA0, 0x80]), Value("truncated sequence", bytes: [0x61, 0xE2, 0x82]),
        // Paths.
        Value("dot-dot", ".."), Value("dot", "."), Value("traversal", "../../../etc"), Value("absolute", "/etc/passwd"),
        Value("root", "/"), Value("device file", "/dev/zero"), Value("slash", "a/b"), Value("trailing slash", "x/"),
        // Option-like.
        Value("a flag", "--json"), Value("dash", "-"), Value("double dash", "--"),
        // Quoting, formats, injection.
        Value("quotes", "'\""), Value("backslash", "\\"), Value("format", "%s%n%x"),
        Value("shell", "$(touch /tmp/privatesync-pwned)"), Value("SQL", "x'); DROP TABLE records;--"),
        Value("equals", "="), Value("at", "@"), Value("double at", "@@"),
        // Unicode that looks harmless or reorders text.
        Value("accent", "é"), Value("right-to-left override", "\u{202E}abc"), Value("zero width", "a\u{200B}b"),
        Value("emoji", "😀"), Value("full-width digits", "１２"),
    ]

    /// A place a value goes: a command line with the value in one position. Where some hostile-looking values are
    /// valid (`nan` is a fine device name, `--json` a flag of `audit`, 10,000 `x` are base64, `/` a record name a
    /// reference may hold), the slot may accept; it must still not trap or print a raw control character.
    struct Slot: Sendable {
        let label: String
        let arguments: @Sendable ([UInt8]) -> [[UInt8]]
        /// Whether a valid value there may succeed (and so change the world).
        let mayAccept: Bool
        /// Whether the slot replaces `--home` (the value is the world's folder).
        let isHome: Bool
    }

    /// A command line template: `V` marks where the value goes (as a whole argument, or after `=`).
    static func slot(_ template: String, mayAccept: Bool = false) -> Slot {
        let words = template.split(separator: " ").map(String.init)
        return Slot(
            label: template,
            arguments: { value in
                words.map { word in
                    if word == "V" { return value }
                    if word.hasSuffix("=V") { return Array(word.dropLast().utf8) + value }
                    return Array(word.utf8)
                }
            }, mayAccept: mayAccept, isHome: template.hasPrefix("--home=V"))
    }

    /// The slots of one command family, run on one world.
    struct Group: Sendable, CustomTestStringConvertible {
        let name: String
        let slots: [Slot]
        var testDescription: String { name }
    }

    static let groups: [Group] = [
        Group(
            name: "init",
            slots: [slot("init --schema=V"), slot("init --container=V")]),
        Group(
            name: "device",
            slots: [
                slot("device add V", mayAccept: true), slot("device add x --account=V", mayAccept: true),
                slot("device add x --sync=V"),
                slot("device reinstall V", mayAccept: true), slot("device reinstall tablet --sync=V"),
                slot("device upgrade V", mayAccept: true),
                slot("device upgrade tablet --entitlement=V"), slot("device list V", mayAccept: true),
            ]),
        Group(
            name: "account",
            slots: [
                slot("account sign-in V --device=tablet", mayAccept: true), slot("account sign-in bob --device=V"),
                slot("account sign-out --device=V"), slot("account status --device=V"),
                slot("account status --device=tablet --set=V"), slot("account start-fresh --device=V"),
            ]),
        Group(
            name: "launch, sync, inspect",
            slots: [
                slot("launch --device=V"), slot("sync on --device=V"), slot("sync off --device=V"),
                slot("sync now --device=V"), slot("sync status --device=V"), slot("inspect --device=V"),
                slot("audit V", mayAccept: true),
            ]),
        Group(
            name: "record add",
            slots: [
                slot("record add V --device=phone"),
                slot("record add CheckIn --device=V --field=mood=1 --field=date=now"),
                slot("record add CheckIn --device=phone --field=V"),
                slot("record add CheckIn --device=phone --field=mood=V --field=date=now", mayAccept: true),
                slot("record add CheckIn --device=phone --field=mood=1 --field=date=V"),
                slot(
                    "record add CheckIn --device=phone --field=mood=1 --field=date=now --field=note=V", mayAccept: true),
                slot("record add CheckIn --device=phone --field=mood=1 --field=date=now --field=note=@V"),
                slot(
                    "record add Document --device=phone --field=title=t --field=kind=k --field=attachedAt=now "
                        + "--field=content=V", mayAccept: true),
                slot(
                    "record add MedicationDose --device=phone --field=medication=m1 --field=takenAt=now "
                        + "--field=amount=V --field=skipped=false", mayAccept: true),
                slot(
                    "record add MedicationDose --device=phone --field=medication=V --field=takenAt=now "
                        + "--field=amount=1 --field=skipped=false", mayAccept: true),
                slot(
                    "record add MedicationDose --device=phone --field=medication=m1 --field=takenAt=now "
                        + "--field=amount=1 --field=skipped=V", mayAccept: true),
            ]),
        Group(
            name: "record edit, delete, list",
            slots: [
                slot("record edit V --device=phone --field=mood=2"),
                slot("record edit RECORD --device=phone --field=V"),
                slot("record edit RECORD --device=phone --clear=V"),
                slot("record edit RECORD --device=V --field=mood=2"),
                slot("record delete V --device=phone"), slot("record delete RECORD --device=V"),
                slot("record list --device=V"), slot("record list --device=phone --type=V"),
            ]),
        Group(
            name: "fault",
            slots: [
                slot("fault inject V"), slot("fault inject network-failure --account=V", mayAccept: true),
                slot("fault inject network-failure --count=V", mayAccept: true),
                slot("fault inject rate-limited --retry-after=V", mayAccept: true),
                slot("fault list V", mayAccept: true),
                slot("fault clear V", mayAccept: true),
            ]),
        Group(
            name: "simulate",
            slots: [
                slot("simulate --steps=3 --seeds=V", mayAccept: true),
                slot("simulate --steps=3 --seed=V", mayAccept: true),
                slot("simulate --seeds=1 --steps=V", mayAccept: true),
                slot("simulate --seeds=1 --steps=3 --devices=V", mayAccept: true),
                slot("simulate --seeds=1 --steps=3 --shard=V", mayAccept: true),
                slot("simulate --seeds=1 --steps=3 --backend=V"),
            ]),
        Group(
            name: "command line",
            slots: [
                slot("V"), slot("device V"), slot("V --json"), slot("--home=V device list"),
                slot("--home=V init", mayAccept: true),
                slot("--home=V record add CheckIn --device=phone --field=mood=1"),
            ]),
    ]

    /// Every slot of every group, in order, for the rotation of values in the short run.
    static let slotCount = groups.reduce(0) { $0 + $1.slots.count }

    /// The values slot number `index` gets: all of them with ``everyValue``, else a rotating seventh of them plus
    /// the empty value and an invalid byte, so that every class runs somewhere in every run.
    static func values(forSlot index: Int) -> [Value] {
        if everyValue { return values }
        return values.enumerated().filter { offset, value in
            offset % 7 == index % 7 || value.name == "empty" || value.name == "invalid byte"
        }.map(\.1)
    }

    /// The number of runs the suite makes (printed, and listed in docs/torture.md).
    static var runCount: Int {
        var total = 0
        var index = 0
        for group in groups {
            for _ in group.slots {
                total += values(forSlot: index).count
                index += 1
            }
        }
        return total
    }

    /// The index of the first slot of `group` in the whole list.
    static func firstSlotIndex(of group: Group) -> Int {
        var index = 0
        for other in groups {
            if other.name == group.name { return index }
            index += other.slots.count
        }
        return index
    }

    @Test(
        "every option and argument given a hostile value: a documented code, no trap, nothing changed",
        arguments: groups)
    func hostile(_ group: Group) throws {
        let cli = try CLIRunner.world(launching: "phone", "tablet")
        let record = try cli.addCheckIn(mood: 1, on: "phone").standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // A folder for relative `--home` values, which must stay empty unless a value was a valid new world.
        let scratch = (cli.home as NSString).deletingLastPathComponent + "/cwd"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        // `init` slots run on a world folder that does not exist yet, so that the value itself is what is judged.
        let freshHome = (cli.home as NSString).deletingLastPathComponent + "/new-world"
        var digest = try cli.worldDigest()
        var runs = 0
        var accepted = 0

        for (offset, slot) in group.slots.enumerated() {
            for value in Self.values(forSlot: Self.firstSlotIndex(of: group) + offset) {
                let isInit = group.name == "init"
                let arguments = slot.arguments(value.bytes).map { $0 == Array("RECORD".utf8) ? Array(record.utf8) : $0 }
                let home =
                    isInit
                    ? [Array("--home".utf8), Array(freshHome.utf8)] : [Array("--home".utf8), Array(cli.home.utf8)]
                let run = try cli.run(bytes: (slot.isHome ? [] : home) + arguments, home: false, in: scratch)
                runs += 1
                let what =
                    "\(slot.label) with \(value.name): exit \(run.status), signal \(run.signal.map(String.init) ?? "none")"
                #expect(run.signal == nil, "\(what): died by a signal; stderr: \(run.standardError.prefix(300))")
                #expect(run.status < 128 && run.status != 70, "\(what); stderr: \(run.standardError.prefix(300))")
                #expect(
                    CLIStrictInputTests.rawControls(run.standardOutput + run.standardError).isEmpty,
                    "\(what): a raw control character reached the terminal")
                let scratchContents = try FileManager.default.contentsOfDirectory(atPath: scratch)
                if run.status == 0 {
                    accepted += 1
                    #expect(slot.mayAccept, "\(what): accepted a hostile value")
                    digest = try cli.worldDigest()
                    for entry in scratchContents { try FileManager.default.removeItem(atPath: scratch + "/" + entry) }
                    try? FileManager.default.removeItem(atPath: freshHome)
                    continue
                }
                #expect([64, 65, 66, 74].contains(run.status), "\(what); stderr: \(run.standardError.prefix(300))")
                #expect(run.standardError.hasPrefix("error: "), "\(what); stderr: \(run.standardError.prefix(300))")
                #expect(try cli.worldDigest() == digest, "\(what): the world changed")
                #expect(scratchContents.isEmpty, "\(what): created \(scratchContents)")
                #expect(!FileManager.default.fileExists(atPath: freshHome), "\(what): created a world")
            }
        }
        print("hostile inputs, \(group.name): \(runs) run(s), \(accepted) valid value(s) accepted")
    }

    @Test("the hostile-input suite covers every class of value and every slot")
    func coverage() {
        print("hostile inputs: \(Self.values.count) values × \(Self.slotCount) slots; \(Self.runCount) runs")
        var seen = Set<String>()
        for index in 0..<Self.slotCount { for value in Self.values(forSlot: index) { seen.insert(value.name) } }
        #expect(seen.count == Self.values.count)
    }
}
