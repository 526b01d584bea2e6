#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A record in a device store.
public struct StoredRecord: Sendable, Hashable, CustomStringConvertible {
    /// Creates a record (as the sync engine does from a server record).
    public init(
        name: String, type: String, fields: [String: FieldValue], fieldVersions: FieldVersions, origin: UserRecordID?,
        createdAt: Date, modifiedAt: Date
    ) {
        self.name = name
        self.type = type
        self.fields = fields
        self.fieldVersions = fieldVersions
        self.origin = origin
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// The record's name, unique on the device and, once synced, its CloudKit record name.
    public let name: String
    /// The record type.
    public let type: String
    /// The field values.
    public var fields: [String: FieldValue]
    /// When each field was last written, and by which device: what per-field conflict resolution compares.
    public var fieldVersions: FieldVersions
    /// The user record of the account signed in when the record was written here, or of the account whose
    /// container it came from; `nil` when it was written with no account signed in. Sync never sends a record to
    /// another account's container.
    public internal(set) var origin: UserRecordID?
    /// When the record was created.
    public let createdAt: Date
    /// When the record was last written on this device.
    public var modifiedAt: Date

    public var description: String {
        let body = fields.keys.sorted().map { "\($0): \(fields[$0]!)" }.joined(separator: ", ")
        return "\(type) \(name) {\(body)}"
    }

    /// The size the record takes as a CloudKit record, exactly as the container measures it against its 1 MB limit:
    /// the encoded fields of the record as sync sends it, with the reserved fields that carry the field versions and
    /// the creation time. The store refuses a record over the limit by it, so a record it accepts can always upload.
    public var encodedSize: Int {
        var sent = fields
        sent[Schema.reservedFieldName] = .string(fieldVersions.encoded)
        sent[Schema.reservedCreatedAtFieldName] = .date(createdAt)
        return FieldsJSON.encodedSize(sent)
    }
}

/// When each field of a record was last written, and by which device.
///
/// Stored (in the device store, and in the reserved `syncFieldVersions` field of synced records) as text:
/// `mood=786297600.5@phone;note=786297700.0@tablet`. A field cleared keeps its version, so that a clear can win a
/// conflict against an older write.
public struct FieldVersions: Sendable, Hashable {
    /// Each field's version.
    public var versions: [String: FieldVersion]

    /// No versions.
    public init() {
        versions = [:]
    }

    /// Versions from a dictionary.
    public init(_ versions: [String: FieldVersion]) {
        self.versions = versions
    }

    /// The version of `field`, if it was ever written.
    public subscript(field: String) -> FieldVersion? {
        get { versions[field] }
        set { versions[field] = newValue }
    }

    /// The time of the latest version, if any field was ever written: when the record's surviving content was
    /// last edited, which every device computes alike once their versions agree.
    public var latest: Double? {
        versions.values.map(\.time).max()
    }

    /// The stored text: `key=time@device` for each field, sorted by key, joined by `;`; each time as its
    /// `description`.
    public var encoded: String {
        String(decoding: encodedBytes, as: UTF8.self)
    }

    /// ``encoded`` as UTF-8 bytes, written byte by byte into one buffer sized beforehand, with each distinct time
    /// formatted once: every record a device stores or sends writes it (`make bench`, `initial_sync_ratio`).
    package var encodedBytes: [UInt8] {
        guard !versions.isEmpty else { return [] }
        var entries: [Entry] = []
        entries.reserveCapacity(versions.count)
        var capacity = 0
        var ascii = true
        for (key, version) in versions {
            let (order, isASCII) = FieldsJSON.orderPrefix(key)
            ascii = ascii && isASCII
            entries.append(Entry(key: key, version: version, order: order))
            // Each time is at most 24 characters (`-1.7976931348623157e+308`), so the estimate always fits.
            capacity += key.utf8.count + version.device.utf8.count + 27
        }
        if ascii {
            entries.sort { $0.order != $1.order ? $0.order < $1.order : $0.key < $1.key }
        } else {
            entries.sort { $0.key < $1.key }
        }
        // A record's fields often share one time: its text is written once, then copied.
        return FieldsWriter.bytes(estimate: capacity) { writer in
            var lastTime: UInt64?
            var lastTimeText = 0..<0
            for index in entries.indices {
                if index > 0 { writer.append(UInt8(ascii: ";")) }
                writer.append(utf8: entries[index].key)
                writer.append(UInt8(ascii: "="))
                let time = entries[index].version.time
                if lastTime == time.bitPattern {
                    writer.appendWritten(lastTimeText)
                } else {
                    let start = writer.count
                    writer.write(double: time)
                    lastTimeText = start..<writer.count
                    lastTime = time.bitPattern
                }
                writer.append(UInt8(ascii: "@"))
                writer.append(utf8: entries[index].version.device)
            }
        }
    }

    /// A field's version, as ``encoded`` lists them.
    private struct Entry {
        let key: String
        let version: FieldVersion
        /// The key's sort prefix (`FieldsJSON.orderPrefix`).
        let order: UInt64
    }

    /// Reads the stored text; `nil` when it is malformed.
    public init?(encoded: String) {
        if let versions = Self.parseASCII(encoded) {
            guard let parsed = versions else { return nil }
            self.versions = parsed
            return
        }
        guard let versions = Self.parseCharacters(encoded) else { return nil }
        self.versions = versions
    }

    /// Reads the stored text character by character, as it was first read: the reading of a text that is not all
    /// ASCII, and the one ``parseASCII(_:)`` must agree with.
    ///
    /// - Parameter encoded: The stored text.
    /// - Returns: The versions by key, or `nil` when the text is malformed.
    static func parseCharacters(_ encoded: String) -> [String: FieldVersion]? {
        var versions: [String: FieldVersion] = [:]
        for entry in encoded.split(separator: ";", omittingEmptySubsequences: true) {
            guard let equals = entry.firstIndex(of: "="), let at = entry.lastIndex(of: "@"), equals < at,
                let time = Double(entry[entry.index(after: equals)..<at])
            else { return nil }
            versions[String(entry[..<equals])] = FieldVersion(
                time: time, device: String(entry[entry.index(after: at)...]))
        }
        return versions
    }

    /// Reads text that is all ASCII, where bytes and characters are one: the versions, or `.some(nil)` when the text
    /// is malformed; `nil` when the text is not all ASCII (the caller then reads it character by character). The
    /// same rules as that reading: entries split on `;` (empty ones skipped), the key before the first `=`, the
    /// device after the last `@`, which must come after that `=`, and between them a time `Double` reads.
    private static func parseASCII(_ encoded: String) -> [String: FieldVersion]?? {
        let utf8 = encoded.utf8
        return utf8.withContiguousStorageIfAvailable { bytes -> [String: FieldVersion]?? in
            var all: UInt8 = 0
            for byte in bytes { all |= byte }
            guard all < 0x80 else { return nil }
            var versions: [String: FieldVersion] = [:]
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: ";") { end += 1 }
                if end > start {
                    var equals = -1
                    var at = -1
                    for index in start..<end {
                        if bytes[index] == UInt8(ascii: "=") && equals < 0 { equals = index }
                        if bytes[index] == UInt8(ascii: "@") { at = index }
                    }
                    guard equals >= 0, at >= 0, equals < at else { return .some(nil) }
                    let timeStart = utf8.index(utf8.startIndex, offsetBy: equals + 1)
                    let timeEnd = utf8.index(utf8.startIndex, offsetBy: at)
                    guard let time = Double(encoded[timeStart..<timeEnd]) else { return .some(nil) }
                    let key = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<equals]), as: UTF8.self)
                    versions[key] = FieldVersion(
                        time: time,
                        device: String(decoding: UnsafeBufferPointer(rebasing: bytes[at + 1..<end]), as: UTF8.self))
                }
                start = end + 1
            }
            return .some(versions)
        } ?? nil
    }
}

/// When a field was written (seconds since 2001-01-01, on the writer's clock) and by which device.
///
/// Versions order by time, then by device identifier, so that two writes in the same instant still have a
/// winner that every device agrees on.
public struct FieldVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 2001-01-01.
    public let time: Double
    /// The writing device's identifier.
    public let device: String

    /// Creates a version.
    public init(time: Double, device: String) {
        self.time = time
        self.device = device
    }

    /// The version of an edit made on this device at `time`, which must supersede the version it replaces.
    ///
    /// A device's clock can lag or jump back; an edit made after the device saw a version is still newer than that
    /// version, as a hybrid logical clock would have it, so the user's edit never loses to what it replaced.
    ///
    /// - Parameters:
    ///   - time: The device clock's time (seconds since 2001-01-01).
    ///   - device: The writing device's identifier.
    ///   - previous: The version the edit replaces, if the field was written before.
    /// - Returns: `time`, or just after `previous` when the clock reads earlier.
    public static func edit(at time: Double, by device: String, superseding previous: FieldVersion?) -> FieldVersion {
        guard let previous, previous.time >= time else { return FieldVersion(time: time, device: device) }
        return FieldVersion(time: previous.time + 0.001, device: device)
    }

    public static func < (lhs: FieldVersion, rhs: FieldVersion) -> Bool {
        (lhs.time, lhs.device) < (rhs.time, rhs.device)
    }

    public var description: String { "\(time)@\(device)" }
}
