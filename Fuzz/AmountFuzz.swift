import PaysheetModel

// libFuzzer entry point over the one amount grammar and exact rates (see Fuzz/run.sh). Every
// input ends in a value or an AmountError: no crash, no trap. What is read is written back and
// read again to the same value; a rate applied never leaves the base's range.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAmounts(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    guard let first = bytes.first else { return 0 }
    let digits = Int(first % 5)
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    if let minor = try? MinorUnits.parse(text, digits: digits, allowNegative: first & 0x80 != 0) {
        let written = MinorUnits.format(minor, digits: digits)
        guard (try? MinorUnits.parse(written, digits: digits, allowNegative: true)) == minor else {
            fatalError("\(text) read as \(minor), written as \(written), which does not read back")
        }
        if let rate = try? Rate(percent: text) {
            let applied = rate.apply(to: minor)
            guard applied.magnitude <= minor.magnitude else { fatalError("\(rate) of \(minor) is \(applied)") }
        }
        _ = try? MinorUnits.sum([minor, minor, minor])
    }
    return 0
}
