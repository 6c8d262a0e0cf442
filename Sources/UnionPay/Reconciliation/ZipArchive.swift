import Foundation

/// The ZIP archives UnionPay's reconciliation downloads hold: files stored or deflated, no
/// encryption, no ZIP64. Reading walks the central directory; writing deflates each file.
/// (The merchant server's Wallet order packages are written and read with it too.)
package struct ZipArchive: Sendable, Equatable {
    /// The files, by name, in archive order.
    package var files: [(name: String, contents: Data)]

    package static func == (a: ZipArchive, b: ZipArchive) -> Bool {
        a.files.map(\.name) == b.files.map(\.name) && a.files.map(\.contents) == b.files.map(\.contents)
    }

    package init(files: [(name: String, contents: Data)]) { self.files = files }

    /// Reads `data`, or throws ``ACPError`` naming what is wrong with it (`what` names the archive).
    package init(reading data: Data, what: String = "the reconciliation archive") throws(ACPError) {
        let bytes = [UInt8](data)
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func bad(_ why: String) -> ACPError {
            ACPError(.malformed, "\(what) is not a readable ZIP: \(why)")
        }
        // The end-of-central-directory record: the last 22 bytes, or earlier when a comment follows.
        guard bytes.count >= 22 else { throw bad("too short") }
        var end = bytes.count - 22
        while end >= 0 && !(bytes[end] == 0x50 && bytes[end + 1] == 0x4B && bytes[end + 2] == 5 && bytes[end + 3] == 6)
        {
            end -= 1
            if bytes.count - end > 22 + 0xFFFF { end = -1 }
        }
        guard end >= 0 else { throw bad("no end-of-central-directory record") }
        let count = u16(end + 10)
        var offset = u32(end + 16)
        var files: [(String, Data)] = []
        var total = 0
        for _ in 0..<count {
            guard offset + 46 <= bytes.count, u32(offset) == 0x0201_4B50 else {
                throw bad("a central directory entry is missing")
            }
            let flags = u16(offset + 8)
            let method = u16(offset + 10)
            let crc = UInt32(u32(offset + 16))
            let compressedSize = u32(offset + 20)
            let size = u32(offset + 24)
            let nameLength = u16(offset + 28)
            let extraLength = u16(offset + 30)
            let commentLength = u16(offset + 32)
            let local = u32(offset + 42)
            guard offset + 46 + nameLength <= bytes.count else { throw bad("an entry's name runs past the end") }
            let nameBytes = Data(bytes[(offset + 46)..<(offset + 46 + nameLength)])
            let name = String(data: nameBytes, encoding: .utf8) ?? String(decoding: nameBytes, as: UTF8.self)
            offset += 46 + nameLength + extraLength + commentLength
            guard flags & 1 == 0 else { throw bad("\(name) is encrypted") }
            guard local + 30 <= bytes.count, u32(local) == 0x0403_4B50 else {
                throw bad("\(name)'s local header is missing")
            }
            let start = local + 30 + u16(local + 26) + u16(local + 28)
            guard start + compressedSize <= bytes.count else { throw bad("\(name) runs past the end") }
            let stored = Data(bytes[start..<(start + compressedSize)])
            total += size
            guard total <= Zlib.maximumOutput else { throw bad("its files exceed \(Zlib.maximumOutput >> 20) MiB") }
            let contents: Data
            switch method {
            case 0: contents = stored
            case 8:
                guard let inflated = Zlib.decompress(stored, format: .raw, limit: size) else {
                    throw bad("\(name) does not inflate")
                }
                contents = inflated
            default: throw bad("\(name) uses compression method \(method)")
            }
            guard contents.count == size, Zlib.crc32(contents) == crc else {
                throw bad("\(name) fails its CRC-32 check")
            }
            files.append((name, contents))
        }
        self.files = files
    }

    /// The archive's bytes: every file deflated, the DOS time of `date` (UTC).
    package func encoded(date: Date = Date()) -> Data {
        var out = Data()
        var directory = Data()
        func le16(_ v: Int, _ d: inout Data) {
            d.append(UInt8(v & 0xFF))
            d.append(UInt8((v >> 8) & 0xFF))
        }
        func le32(_ v: Int, _ d: inout Data) {
            le16(v & 0xFFFF, &d)
            le16((v >> 16) & 0xFFFF, &d)
        }
        var seconds = time_t(Int(date.timeIntervalSince1970))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let dosTime = Int(parts.tm_hour) << 11 | Int(parts.tm_min) << 5 | Int(parts.tm_sec) / 2
        let dosDate = Int(max(0, parts.tm_year - 80)) << 9 | Int(parts.tm_mon + 1) << 5 | Int(parts.tm_mday)
        for (name, contents) in files {
            let deflated = Zlib.compress(contents, format: .raw)
            let crc = Int(Zlib.crc32(contents))
            let nameBytes = Data(name.utf8)
            var header = Data()
            le16(20, &header)
            le16(0, &header)
            le16(8, &header)
            le16(dosTime, &header)
            le16(dosDate, &header)
            le32(crc, &header)
            le32(deflated.count, &header)
            le32(contents.count, &header)
            le16(nameBytes.count, &header)
            le16(0, &header)
            let offset = out.count
            le32(0x0403_4B50, &out)
            out.append(header)
            out.append(nameBytes)
            out.append(deflated)
            le32(0x0201_4B50, &directory)
            le16(20, &directory)
            directory.append(header)
            le16(0, &directory)
            le16(0, &directory)
            le16(0, &directory)
            le32(0, &directory)
            le32(offset, &directory)
            directory.append(nameBytes)
        }
        let directoryOffset = out.count
        out.append(directory)
        le32(0x0605_4B50, &out)
        le16(0, &out)
        le16(0, &out)
        le16(files.count, &out)
        le16(files.count, &out)
        le32(directory.count, &out)
        le32(directoryOffset, &out)
        le16(0, &out)
        return out
    }
}
