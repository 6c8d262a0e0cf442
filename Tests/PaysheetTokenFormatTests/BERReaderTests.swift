import Foundation
import SwiftASN1
import Testing
@testable import PaysheetTokenFormat

/// The BER reader and the CMS parser on their own: definite and indefinite lengths, bounds, depth,
/// and arbitrary bytes (which must end in a node or an error, never a crash).
@Suite struct BERReaderTests {
    @Test func definiteAndIndefiniteLengths() throws {
        // SEQUENCE { INTEGER 5, OCTET STRING "ab" } in definite form, then the same in indefinite form.
        let definite: [UInt8] = [0x30, 0x07, 0x02, 0x01, 0x05, 0x04, 0x02, 0x61, 0x62]
        let indefinite: [UInt8] = [0x30, 0x80, 0x02, 0x01, 0x05, 0x04, 0x02, 0x61, 0x62, 0x00, 0x00]
        for bytes in [definite, indefinite] {
            let r = BERReader(bytes: bytes)
            let top = try r.node(at: 0, limit: bytes.count)
            #expect(top.tag == 0x30 && top.isConstructed)
            #expect(top.end == bytes.count)
            let kids = try r.children(top)
            #expect(kids.map(\.tag) == [0x02, 0x04])
            #expect(try r.content(kids[1]) == [0x61, 0x62])
        }
        // A long-form length.
        let long: [UInt8] = [0x04, 0x81, 0x03, 1, 2, 3]
        #expect(try BERReader(bytes: long).content(BERReader(bytes: long).node(at: 0, limit: long.count)) == [1, 2, 3])
    }

    @Test func truncatedOrTooDeepInputIsAnError() {
        let cases: [[UInt8]] = [
            [], [0x30], [0x30, 0x05, 0x02], [0x04, 0x84, 0xff, 0xff, 0xff, 0xff], [0x30, 0x80, 0x02, 0x01, 0x05],
            [0x04, 0x80, 0x00, 0x00],
        ]  // an indefinite length on a primitive node
        for bytes in cases {
            #expect(throws: PaymentTokenError.self, "\(bytes)") {
                let r = BERReader(bytes: bytes)
                let n = try r.node(at: 0, limit: bytes.count)
                _ = try r.children(n)
            }
        }
        // 30 nested indefinite SEQUENCEs: beyond the reader's depth bound.
        let deep: [UInt8] =
            Array([[UInt8]](repeating: [0x30, 0x80], count: 30).joined()) + [UInt8](repeating: 0, count: 60)
        #expect(throws: PaymentTokenError.self) {
            let r = BERReader(bytes: deep)
            var n = try r.node(at: 0, limit: deep.count)
            var depth = 1
            while let first = try r.children(n, depth: depth).first {
                n = first
                depth += 1
            }
        }
    }

    @Test func arbitraryBytesNeverCrashTheSignatureParser() {
        var state: UInt64 = 42
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        var refused = 0
        for length in 0..<400 {
            // Start like a SignedData (SEQUENCE, OID) so that the parser goes deeper than the first byte.
            let prefix: [UInt8] = [0x30, 0x80, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02]
            let bytes = (length % 2 == 0 ? prefix : []) + (0..<length).map { _ in next() }
            do { _ = try AppleSignedData(berEncoded: bytes) } catch { refused += 1 }
        }
        #expect(refused == 400)
    }
}

/// The CMS reader's shortcuts against the swift-asn1 parsers they stand before.
@Suite struct CMSShortcutTests {
    @Test func knownIdentifiersAreTheOnesSwiftASN1Reads() throws {
        for (der, oid) in KnownOIDs.table {
            #expect(try ASN1ObjectIdentifier(derEncoded: der) == oid)
            #expect(KnownOIDs.lookup(der[...]) == oid)
        }
        // An identifier not in the table is not found (the reader then asks swift-asn1).
        #expect(KnownOIDs.lookup([0x06, 0x03, 0x55, 0x04, 0x03][...]) == nil)
    }

    @Test func aPlainUTCTimeIsReadAsSwiftASN1ReadsIt() throws {
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % n
        }
        for _ in 0..<3000 {
            // Mostly valid fields, sometimes out of range (month 13, day 31 of a 30-day month, 24 h).
            let fields = [next(100), 1 + next(13), 1 + next(31), next(25), next(61), next(61)]
            let text = fields.map { String(format: "%02d", $0) }.joined() + "Z"
            let der = [0x17, UInt8(text.utf8.count)] + Array(text.utf8)
            let theirs = try? UTCTime(derEncoded: der)
            let ours = AppleSignedData.plainUTCTime(Array(text.utf8)[...])
            if let ours {
                let theirs = try #require(theirs, "\(text) read by the shortcut, refused by swift-asn1")
                #expect(
                    ours
                        == BERNodes.date(
                            theirs.year,
                            theirs.month,
                            theirs.day,
                            theirs.hours,
                            theirs.minutes,
                            theirs.seconds
                        )
                )
            }
        }
        for other in ["2611261200Z", "261126120000+0100", "26112612000Z0", "2611261200001"] {
            #expect(AppleSignedData.plainUTCTime(Array(other.utf8)[...]) == nil, "\(other)")
        }
    }
}
