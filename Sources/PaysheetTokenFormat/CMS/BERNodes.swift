import Foundation
import SwiftASN1

/// Small helpers for walking a BER tree whose shape is known, with errors that say where.
enum BERNodes {
    static func fail(_ what: String) -> PaymentTokenError {
        PaymentTokenError(.malformed, "signature: \(what)")
    }

    static func children(_ node: ASN1Node, _ what: String, tag: ASN1Identifier) throws(PaymentTokenError) -> [ASN1Node] {
        guard node.identifier == tag, case .constructed(let nodes) = node.content else {
            throw fail("\(what) is not a \(name(tag))")
        }
        return Array(nodes)
    }

    static func name(_ tag: ASN1Identifier) -> String {
        switch tag {
        case .sequence: return "SEQUENCE"
        case .set: return "SET"
        default: return "[\(tag.tagNumber)]"
        }
    }

    static func oid(_ node: ASN1Node, _ what: String) throws(PaymentTokenError) -> ASN1ObjectIdentifier {
        do { return try ASN1ObjectIdentifier(derEncoded: node) } catch { throw fail("\(what) is not an object identifier") }
    }

    /// An OCTET STRING's content, joining the segments of a constructed (BER) encoding.
    static func octets(_ node: ASN1Node, _ what: String, tag: ASN1Identifier = .octetString) throws(PaymentTokenError) -> [UInt8] {
        guard node.identifier == tag else { throw fail("\(what) is not an OCTET STRING") }
        switch node.content {
        case .primitive(let bytes): return Array(bytes)
        case .constructed(let parts):
            var out: [UInt8] = []
            for part in parts { out += try octets(part, what) }
            return out
        }
    }

    /// The algorithm OID of an AlgorithmIdentifier, whatever its parameters.
    static func algorithm(_ node: ASN1Node, _ what: String) throws(PaymentTokenError) -> ASN1ObjectIdentifier {
        let parts = try children(node, what, tag: .sequence)
        guard let first = parts.first else { throw fail("\(what) is empty") }
        return try oid(first, "\(what).algorithm")
    }

    /// A UTCTime or GeneralizedTime as a date.
    static func time(_ node: ASN1Node, _ what: String) throws(PaymentTokenError) -> Date {
        do {
            if node.identifier == .utcTime {
                let t = try UTCTime(derEncoded: node)
                return date(t.year, t.month, t.day, t.hours, t.minutes, t.seconds)
            }
            if node.identifier == .generalizedTime {
                let t = try GeneralizedTime(derEncoded: node)
                return date(t.year, t.month, t.day, t.hours, t.minutes, t.seconds).addingTimeInterval(t.fractionalSeconds)
            }
        } catch {
            throw fail("\(what) is not a valid time")
        }
        throw fail("\(what) is not a UTCTime or GeneralizedTime")
    }

    /// Seconds since 1970 for a proleptic Gregorian UTC date (days-from-civil).
    static func date(_ y: Int, _ m: Int, _ d: Int, _ hh: Int, _ mm: Int, _ ss: Int) -> Date {
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + hh * 3600 + mm * 60 + ss))
    }
}
