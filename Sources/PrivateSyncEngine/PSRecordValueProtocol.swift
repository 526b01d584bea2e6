import Foundation  // the whole Foundation: NSNumber, which numbers read back as (CloudKit's own numbers are NSNumbers)

/// A value a record field can hold, as `CKRecordValueProtocol`: strings, numbers, Booleans, dates, data,
/// references, locations, and arrays of one of those.
///
/// Like CloudKit, a record hands numbers back as `NSNumber`, so `record["count"] as? Int`, `as? Int64`,
/// `as? Double` and `as? Bool` all read them, as on a device. Only the types listed under Conforming Types can be
/// stored; the conformances are the package's, not to be added to.
public protocol PSRecordValueProtocol: Sendable {}

extension String: PSRecordValueProtocol {}
extension Int: PSRecordValueProtocol {}
extension Int8: PSRecordValueProtocol {}
extension Int16: PSRecordValueProtocol {}
extension Int32: PSRecordValueProtocol {}
extension Int64: PSRecordValueProtocol {}
extension UInt8: PSRecordValueProtocol {}
extension UInt16: PSRecordValueProtocol {}
extension UInt32: PSRecordValueProtocol {}
extension Double: PSRecordValueProtocol {}
extension Float: PSRecordValueProtocol {}
extension Bool: PSRecordValueProtocol {}
extension Date: PSRecordValueProtocol {}
extension Data: PSRecordValueProtocol {}
extension NSNumber: PSRecordValueProtocol {}
extension Location: PSRecordValueProtocol {}
extension PSRecord.Reference: PSRecordValueProtocol {}
extension Array: PSRecordValueProtocol where Element: PSRecordValueProtocol {}

/// How record values become the container's field values and back.
enum RecordValueConversion {
    /// The container's value for `value`, or `nil` for a value of no field type (an array of arrays).
    ///
    /// Integers and Booleans are stored as 64-bit integers, as CloudKit stores them: a field may hold `true` in one
    /// save and `2` in the next.
    static func fieldValue(_ value: any PSRecordValueProtocol) -> FieldValue? {
        switch value {
        case let string as String: return .string(string)
        case let bool as Bool: return .int64(bool ? 1 : 0)
        case let int as Int: return .int64(Int64(int))
        case let int as Int64: return .int64(int)
        case let int as Int32: return .int64(Int64(int))
        case let int as Int16: return .int64(Int64(int))
        case let int as Int8: return .int64(Int64(int))
        case let int as UInt32: return .int64(Int64(int))
        case let int as UInt16: return .int64(Int64(int))
        case let int as UInt8: return .int64(Int64(int))
        case let double as Double: return .double(double)
        case let float as Float: return .double(Double(float))
        case let date as Date: return .date(date)
        case let data as Data: return .bytes(data)
        case let number as NSNumber: return fieldValue(number)
        case let location as Location: return .location(location)
        case let reference as PSRecord.Reference: return .reference(reference.containerReference)
        default: return listValue(value)
        }
    }

    private static func fieldValue(_ number: NSNumber) -> FieldValue {
        switch String(cString: number.objCType) {
        case "d", "f": .double(number.doubleValue)
        default: .int64(number.int64Value)
        }
    }

    private static func listValue(_ value: any PSRecordValueProtocol) -> FieldValue? {
        // Arrays are the only other conformers; their elements convert one by one.
        guard let elements = value as? [any PSRecordValueProtocol] else { return nil }
        var converted: [FieldValue] = []
        converted.reserveCapacity(elements.count)
        for element in elements {
            guard let scalar = fieldValue(element), !scalar.isList else { return nil }
            converted.append(scalar)
        }
        return .list(converted)
    }

    /// The value a record hands back for a stored field: `String`, `NSNumber`, `Date`, `Data`, `Location`,
    /// `PSRecord.Reference`, or an array of one of those.
    static func recordValue(_ value: FieldValue) -> any PSRecordValueProtocol {
        switch value {
        case .string(let string): string
        case .int64(let int): NSNumber(value: int)
        case .bool(let bool): NSNumber(value: bool ? 1 : 0)
        case .double(let double): NSNumber(value: double)
        case .date(let date): date
        case .bytes(let data): data
        case .location(let location): location
        case .reference(let reference): PSRecord.Reference(reference)
        case .list(let elements): listValue(elements)
        }
    }

    /// A list as an array of its element type, so that `as? [String]` and `as? [Int]` read it.
    private static func listValue(_ elements: [FieldValue]) -> any PSRecordValueProtocol {
        switch elements.first {
        case .string?: elements.compactMap { if case .string(let value) = $0 { value } else { nil } }
        case .date?: elements.compactMap { if case .date(let value) = $0 { value } else { nil } }
        case .bytes?: elements.compactMap { if case .bytes(let value) = $0 { value } else { nil } }
        case .location?: elements.compactMap { if case .location(let value) = $0 { value } else { nil } }
        case .reference?:
            elements.compactMap { if case .reference(let value) = $0 { PSRecord.Reference(value) } else { nil } }
        case .int64?, .bool?, .double?:
            elements.map { recordValue($0) as? NSNumber ?? NSNumber(value: 0) }
        case .list?, nil: [String]()
        }
    }
}

extension FieldValue {
    /// Whether the value is a list.
    var isList: Bool {
        if case .list = self { return true }
        return false
    }
}
