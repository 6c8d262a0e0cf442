/// The Luhn check of card numbers (ISO/IEC 7812-1).
public enum Luhn {
    /// Whether `number` (12 or more decimal digits) passes the Luhn check.
    public static func isValid(_ number: String) -> Bool {
        let digits = number.utf8.map { Int($0) - 48 }
        guard digits.count >= 12, digits.allSatisfy({ (0...9).contains($0) }), let last = digits.last else {
            return false
        }
        return checkDigit(Array(digits.dropLast())) == last
    }

    /// The check digit that makes `digits` followed by it pass the Luhn check.
    public static func checkDigit(_ digits: [Int]) -> Int {
        var sum = 0
        for (i, d) in digits.reversed().enumerated() {
            if i % 2 == 0 {
                let x = d * 2
                sum += x > 9 ? x - 9 : x
            } else {
                sum += d
            }
        }
        return (10 - sum % 10) % 10
    }
}
