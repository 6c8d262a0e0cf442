import Foundation

/// A percentage held exactly, in millionths of the base (`7.25` percent is 72,500), from 0 to 100
/// percent with at most four decimals. Applied to an amount in minor units, the result is rounded
/// to the nearest minor unit, halves away from zero (`7.25 %` of 0.10 is 0.0073 → 0.01).
///
/// Written as decimal text (`"7.25"`) or, in configuration files, a JSON number that has at most
/// four decimals (`7.25`).
public struct Rate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Millionths of the base.
    public let partsPerMillion: Int

    /// The rate of `percent` (decimal text such as `"7.25"`).
    public init(percent: String) throws(AmountError) {
        let ppm: Int
        do throws(AmountError) {
            ppm = try MinorUnits.parse(percent, digits: 4)
        } catch {
            throw AmountError(
                .rate,
                "rate \(AmountError.quoted(percent)) is not a percentage from 0 to 100 with at most four decimals"
            )
        }
        guard ppm <= 1_000_000 else {
            throw AmountError(.rate, "rate \(AmountError.quoted(percent)) is more than 100 percent")
        }
        partsPerMillion = ppm
    }

    /// The rate of `percent` (a whole number of percent).
    public init(wholePercent: Int) {
        partsPerMillion = max(0, min(100, wholePercent)) * 10_000
    }

    /// `percent` × `base`, rounded to the nearest minor unit (halves away from zero). Never
    /// overflows: the rate is at most 100 percent, so the result is at most `base`.
    public func apply(to base: Int) -> Int {
        let product = base.magnitude.multipliedFullWidth(by: UInt(partsPerMillion))
        let (quotient, remainder) = UInt(1_000_000).dividingFullWidth(product)
        let rounded = quotient + (remainder * 2 >= 1_000_000 ? 1 : 0)
        return base < 0 ? -Int(rounded) : Int(rounded)
    }

    /// Whether the rate is zero.
    public var isZero: Bool { partsPerMillion == 0 }

    /// The percentage as decimal text (`"7.25"`).
    public var description: String {
        var text = MinorUnits.format(partsPerMillion, digits: 4)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            do { self = try Rate(percent: text) } catch {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
            }
            return
        }
        let number = try container.decode(Double.self)
        // A JSON number is read as a double: accepted only when it is exactly a percentage of four decimals.
        let scaled = (number * 10_000).rounded()
        guard number >= 0, number <= 100, abs(scaled - number * 10_000) < 1e-6 else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription:
                    "rate \(number) is not a percentage from 0 to 100 with at most four decimals (write it as text, such as \"7.25\")"
            )
        }
        partsPerMillion = Int(scaled)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
