#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The value of a record field: one of CloudKit's field types, or a list of one of them.
public enum FieldValue: Hashable, Sendable, CustomStringConvertible {
    /// A string.
    case string(String)
    /// A 64-bit integer.
    case int64(Int64)
    /// A double.
    case double(Double)
    /// A Boolean, which CloudKit stores as an integer.
    case bool(Bool)
    /// Bytes (`CKRecord`'s `Data`; an asset's contents in this fake).
    case bytes(Data)
    /// A date.
    case date(Date)
    // A reference (two names) and a location (five doubles) are stored out of line, so that every value is as small
    // as a string: fields are copied, hashed and moved by the thousand on every save and fetch.
    /// A reference to another record.
    indirect case reference(RecordReference)
    /// A location.
    indirect case location(Location)
    /// A list; its elements share one type and are not lists themselves.
    case list([FieldValue])

    /// The value's type, or `nil` for an empty list, whose element type is unknown and fits any list field.
    public var type: FieldType? {
        switch self {
        case .string: .string
        case .int64: .int64
        case .double: .double
        case .bool: .bool
        case .bytes: .bytes
        case .date: .date
        case .reference: .reference
        case .location: .location
        case .list(let elements): elements.first?.type.map { .list($0) }
        }
    }

    /// A number for the value's type, the same for values of one scalar type and different between scalar types;
    /// ``listTypeCode`` for every list. Comparing two records' shapes by it costs no allocation and no look-up.
    var typeCode: UInt8 {
        switch self {
        case .string: 0
        case .int64: 1
        case .double: 2
        case .bool: 3
        case .bytes: 4
        case .date: 5
        case .reference: 6
        case .location: 7
        case .list: Self.listTypeCode
        }
    }

    /// The ``typeCode`` of every list, whatever its elements.
    static let listTypeCode: UInt8 = 0xFF

    /// Whether CloudKit accepts every value of this value's type (``problem`` is always `nil`), so that checking it
    /// costs nothing.
    var isAlwaysAcceptable: Bool {
        switch self {
        case .string, .int64, .bool, .bytes, .reference: true
        case .double, .date, .location, .list: false
        }
    }

    /// Why CloudKit would refuse this value, or `nil` when it is acceptable.
    ///
    /// Lists must be flat and of one type; doubles must be finite (they cannot be stored in JSON otherwise, and a
    /// NaN can never compare equal to itself); locations must lie on Earth.
    public var problem: String? {
        switch self {
        case .double(let value) where !value.isFinite:
            return "the double \(value) is not finite"
        case .date(let value) where !value.timeIntervalSinceReferenceDate.isFinite:
            return "the date is not finite"
        case .location(let location):
            return location.problem
        case .list(let elements):
            guard let first = elements.first?.type else { return nil }
            if case .list = first { return "a list may not hold lists" }
            if elements.contains(where: { $0.type != first }) { return "a list's elements must all be of one type" }
            return elements.lazy.compactMap(\.problem).first
        default:
            return nil
        }
    }

    public var description: String {
        switch self {
        case .string(let value): "\"\(value)\""
        case .int64(let value): "\(value)"
        case .double(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .bytes(let value): "<\(value.count) bytes>"
        case .date(let value): "date(\(value.timeIntervalSinceReferenceDate))"
        case .reference(let value): "reference(\(value.recordID.recordName))"
        case .location(let value): "location(\(value.latitude), \(value.longitude))"
        case .list(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

/// A field's type, as a record type's schema fixes it once the first value is saved.
public indirect enum FieldType: Hashable, Sendable, CustomStringConvertible {
    /// ``FieldValue/string(_:)``.
    case string
    /// ``FieldValue/int64(_:)``.
    case int64
    /// ``FieldValue/double(_:)``.
    case double
    /// ``FieldValue/bool(_:)``.
    case bool
    /// ``FieldValue/bytes(_:)``.
    case bytes
    /// ``FieldValue/date(_:)``.
    case date
    /// ``FieldValue/reference(_:)``.
    case reference
    /// ``FieldValue/location(_:)``.
    case location
    /// ``FieldValue/list(_:)`` of one type.
    case list(FieldType)

    /// The scalar types, in a fixed order.
    public static let scalars: [FieldType] = [.string, .int64, .double, .bool, .bytes, .date, .reference, .location]

    /// The type's name: `string`, `int64`, …, or `list<string>`.
    public var name: String {
        switch self {
        case .string: "string"
        case .int64: "int64"
        case .double: "double"
        case .bool: "bool"
        case .bytes: "bytes"
        case .date: "date"
        case .reference: "reference"
        case .location: "location"
        case .list(let element): "list<\(element.name)>"
        }
    }

    /// Parses a name as ``name`` writes it.
    ///
    /// - Parameter name: `string`, `int64`, `double`, `bool`, `bytes`, `date`, `reference`, `location`, or
    ///   `list<T>` of one of those.
    public init?(name: String) {
        if name.hasPrefix("list<"), name.hasSuffix(">") {
            guard let element = FieldType(name: String(name.dropFirst(5).dropLast())), !element.isList else {
                return nil
            }
            self = .list(element)
            return
        }
        guard let scalar = Self.scalars.first(where: { $0.name == name }) else { return nil }
        self = scalar
    }

    /// Whether this is a list type.
    public var isList: Bool {
        if case .list = self { return true }
        return false
    }

    /// Whether `value` may be stored in a field of this type.
    public func accepts(_ value: FieldValue) -> Bool {
        guard let valueType = value.type else { return isList }
        return valueType == self
    }

    public var description: String { name }
}

/// A reference from one record to another, as `CKRecord.Reference`.
public struct RecordReference: Hashable, Sendable {
    /// What happens to the referencing record when the target is deleted.
    public enum Action: String, Hashable, Sendable {
        /// Nothing.
        case none
        /// CloudKit deletes the referencing record too. This package records the action but does not cascade.
        case deleteSelf
    }

    /// The referenced record.
    public let recordID: RecordID
    /// The delete action.
    public let action: Action

    /// Creates a reference.
    public init(recordID: RecordID, action: Action = .none) {
        self.recordID = recordID
        self.action = action
    }
}

/// A location, as the fields of `CLLocation` that CloudKit stores.
public struct Location: Hashable, Sendable {
    /// Degrees north of the equator.
    public let latitude: Double
    /// Degrees east of the prime meridian.
    public let longitude: Double
    /// Meters above sea level.
    public let altitude: Double
    /// The radius of uncertainty of the latitude and longitude, in meters.
    public let horizontalAccuracy: Double
    /// The uncertainty of the altitude, in meters.
    public let verticalAccuracy: Double

    /// Creates a location.
    public init(
        latitude: Double, longitude: Double, altitude: Double = 0, horizontalAccuracy: Double = 0,
        verticalAccuracy: Double = -1
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
    }

    var problem: String? {
        guard [latitude, longitude, altitude, horizontalAccuracy, verticalAccuracy].allSatisfy(\.isFinite) else {
            return "a location's coordinates must be finite"
        }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            return "the location (\(latitude), \(longitude)) is not on Earth"
        }
        return nil
    }
}
