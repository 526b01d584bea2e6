import ArgumentParsing

extension ValueParser where Value == Int {
    /// A whole number in `range`.
    static func wholeNumber(in range: ClosedRange<Int>) -> ValueParser<Int> {
        ValueParser { text, name in
            guard let value = Int(text), range.contains(value) else {
                return .failure(
                    ValueError(
                        "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound); got '\(TextEscaping.escape(text.prefix(40)))'"
                    ))
            }
            return .success(value)
        }
    }
}

extension ValueParser where Value == UInt64 {
    /// Any whole number a 64-bit seed holds.
    static var seed: ValueParser<UInt64> {
        ValueParser { text, name in
            guard let value = UInt64(text) else {
                return .failure(
                    ValueError("\(name) must be a whole number; got '\(TextEscaping.escape(text.prefix(40)))'"))
            }
            return .success(value)
        }
    }
}

extension ValueParser where Value == Double {
    /// A finite number of seconds from 0 to `maximum`.
    static func seconds(upTo maximum: Int) -> ValueParser<Double> {
        ValueParser { text, name in
            guard let value = Double(text), value.isFinite, value >= 0, value <= Double(maximum) else {
                return .failure(
                    ValueError(
                        "\(name) must be a number of seconds from 0 to \(maximum); got '\(TextEscaping.escape(text.prefix(40)))'"
                    ))
            }
            return .success(value)
        }
    }
}

extension ValueParser where Value == Bool {
    /// `on` or `off`.
    static var onOff: ValueParser<Bool> { .oneOf([("on", true), ("off", false)]) }
}
