import Testing

@testable import PaysheetModel

/// The JSON parser's eight-bytes-at-a-time scan for the end of a plain string run, against the
/// byte-by-byte loop it shortcuts, on seeded random text with every special byte at every offset.
@Suite struct JSONScanTests {
    static func naive(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] != 0x22, bytes[index] != 0x5C, bytes[index] >= 0x20 { index += 1 }
        return index
    }

    @Test func theWordScanStopsWhereTheByteLoopStops() {
        var state: UInt64 = 20_261_126
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        // Plain bytes: printable ASCII and UTF-8 continuation/lead bytes (≥ 0x80), never special.
        let plain = (0x20...0xFF).map(UInt8.init).filter { $0 != 0x22 && $0 != 0x5C }
        for special: UInt8 in [0x22, 0x5C, 0x00, 0x01, 0x1F, 0x0A] {
            for length in 0..<40 {
                for position in 0...length {
                    var bytes = (0..<length).map { _ in plain[Int(next()) % plain.count] }
                    if position < length { bytes[position] = special }
                    for start in [0, min(3, length)] {
                        let (end, ascii) = JSONParser.plainRunEnd(bytes, from: start)
                        let expected = Self.naive(bytes, from: start)
                        #expect(end == expected, "special \(special) at \(position) of \(length), from \(start)")
                        #expect(ascii == bytes[start..<expected].allSatisfy { $0 < 0x80 })
                    }
                }
            }
        }
        // Long runs (from 128 bytes left, the quote is found by memchr and the run checked at
        // once): every special byte, and a byte outside ASCII, at sampled places of each run.
        for special: UInt8 in [0x22, 0x5C, 0x00, 0x1F, 0x0A, 0x80, 0xC3, 0xFF] {
            for length in [127, 128, 129, 200, 300, 517] {
                for position in Set([0, 1, 7, 8, 63, 64, length / 2, length - 9, length - 8, length - 1, length]) {
                    var bytes = (0..<length).map { _ in plain[Int(next()) % 94] }  // ASCII only
                    if position < length { bytes[position] = special }
                    let closed = bytes + [0x22] + [UInt8](repeating: 0x41, count: 5)
                    for candidate in [bytes, closed] {
                        for start in [0, 1, 5, 9] {
                            let (end, ascii) = JSONParser.plainRunEnd(candidate, from: start)
                            let expected = Self.naive(candidate, from: start)
                            #expect(end == expected, "special \(special) at \(position) of \(length), from \(start)")
                            #expect(ascii == candidate[start..<expected].allSatisfy { $0 < 0x80 })
                        }
                    }
                }
            }
        }
        // Bytes around the special ones (0x21, 0x23, 0x5B, 0x5D, 0x20, 0x7F, 0x80, 0xFF) never stop it.
        let near: [UInt8] = [0x21, 0x23, 0x5B, 0x5D, 0x20, 0x7F, 0x80, 0xFF, 0xA2, 0xDC]
        let long = (0..<1000).map { near[$0 % near.count] }
        #expect(JSONParser.plainRunEnd(long, from: 0) == (1000, false))
        let plainASCII = [UInt8](repeating: 0x41, count: 999) + [0xC3]
        #expect(JSONParser.plainRunEnd(plainASCII, from: 0) == (1000, false))
        #expect(JSONParser.plainRunEnd(Array(plainASCII.dropLast()), from: 0) == (999, true))
    }
}
