import PrivateCloud
import Testing

@testable import DeviceStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Field versions' stored text, written and read byte by byte: the same text, and the same reading, as the simple
/// character-by-character forms they replace.
@Suite("Field versions")
struct FieldVersionsTests {
    /// The stored text as it was first written: keys sorted, `key=time@device`, joined by `;`.
    static func reference(_ versions: FieldVersions) -> String {
        versions.versions.keys.sorted().map { key in
            let version = versions.versions[key]!
            return "\(key)=\(version.time)@\(version.device)"
        }.joined(separator: ";")
    }

    /// The reading as it was first written, character by character (the store's own reading of a text that is not
    /// all ASCII).
    static func referenceReading(_ encoded: String) -> FieldVersions? {
        FieldVersions.parseCharacters(encoded).map(FieldVersions.init)
    }

    @Test("written as before: sorted keys, every time as its description, shared times and odd devices included")
    func writing() {
        let times: [Double] = [
            0, -0.0, 1, 788_918_400, 788_918_400.123_456, -1.5, 1e15, 1e16, 1.7976931348623157e308, 0.1,
            .leastNonzeroMagnitude,
        ]
        let devices = ["phone", "server", "a@b", "", "dévice", "x=y"]
        let keys = ["mood", "note", "date", "a", "ab", "abcdefghij", "abcdefghik", "é", "Z", "_x"]
        for count in [0, 1, 3, keys.count] {
            var versions = FieldVersions()
            for (index, key) in keys.prefix(count).enumerated() {
                versions[key] = FieldVersion(
                    time: times[index % 3 == 0 ? 3 : index % times.count], device: devices[index % devices.count])
            }
            #expect(versions.encoded == Self.reference(versions))
            #expect(versions.encodedBytes == Array(Self.reference(versions).utf8))
        }
    }

    @Test("read as before, ASCII or not, malformed or not")
    func reading() {
        let texts = [
            "", ";", ";;", "mood=1.0@phone", "mood=1.0@phone;note=2.5@tablet", ";mood=1.0@phone;", "mood=1.0@a@b",
            "a=b=1.0@x", "mood=oops@x", "mood@1.0=x", "mood=1.0", "mood=@x", "mood=1e3@x", "mood= 1.0@x",
            "mood=0x10@x", "mood=inf@x", "mood=nan@x", "mood=-0.0@x", "mood=1.0@x;mood=2.0@y", "café=1.0@x",
            "mood=1.0@dévice", "mood=1.0@x;\u{301}note=2.0@y", "mood=1.0@x;é=2@y", "=1.0@x", "mood=1.0@",
        ]
        for text in texts {
            let read = FieldVersions(encoded: text)
            let expected = Self.referenceReading(text)
            #expect(read?.versions.count == expected?.versions.count, "\(text.debugDescription)")
            if let read, let expected {
                for (key, version) in expected.versions {
                    #expect(read.versions[key]?.device == version.device, "\(text.debugDescription)")
                    #expect(read.versions[key]?.time.bitPattern == version.time.bitPattern, "\(text.debugDescription)")
                }
            }
        }
    }
}

/// The one query that tells a fetched page's names the store has never seen from those it must look up.
@Suite("Known names")
struct KnownNamesTests {
    @Test("a name is known when the store holds its record or a pending change for it, whatever its characters")
    func knownNames() throws {
        try withUserStore { store, _ in
            let kept = try store.insertCheckIn(mood: 3).name
            let odd = "quote\" back\\slash ;=@ \u{7}"
            try store.insertCheckIn(mood: 1, name: "sent")
            try store.syncTransaction { state in
                try state.removePendingChange(named: "sent", ifRevision: nil)
                try state.queue(.delete, name: odd, type: "CheckIn")
            }
            let known = try store.syncSnapshot { state in
                try state.knownNames(among: [kept, "sent", odd, "never", "x\"y", "", kept])
            }
            #expect(known == [kept, "sent", odd])
            #expect(try store.syncSnapshot { try $0.knownNames(among: []) }.isEmpty)
        }
    }
}
