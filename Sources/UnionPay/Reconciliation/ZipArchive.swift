import Foundation
import ZIPFoundation

/// The ZIP archives UnionPay's reconciliation downloads hold, read and written in memory by
/// ZIPFoundation: files stored or deflated, no encryption; directories hold nothing and are
/// left out. What a damaged or hostile archive gets is an ``ACPError`` naming the problem.
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
        func bad(_ why: String) -> ACPError {
            ACPError(.malformed, "\(what) is not a readable ZIP: \(why)")
        }
        let archive: Archive
        do { archive = try Archive(data: data, accessMode: .read) } catch { throw bad(Self.reason(error)) }
        var files: [(String, Data)] = []
        var total: UInt64 = 0
        for entry in archive where entry.type != .directory {
            // Names as UTF-8, what UnionPay's (ASCII) names and the SDKs' readers agree on.
            let name = entry.path(using: .utf8)
            guard entry.type == .file else { throw bad("\(name) is not a file") }
            total += entry.uncompressedSize
            guard total <= UInt64(Zlib.maximumOutput) else {
                throw bad("its files exceed \(Zlib.maximumOutput >> 20) MiB")
            }
            files.append((name, try Self.contents(of: entry, in: archive, bad: bad)))
        }
        self.files = files
    }

    /// An entry's bytes, no more than its central directory declares; ZIPFoundation checks the CRC-32.
    private static func contents(
        of entry: Entry,
        in archive: Archive,
        bad: (String) -> ACPError
    ) throws(ACPError) -> Data {
        let name = entry.path(using: .utf8)
        let size = Int(entry.uncompressedSize)
        var contents = Data()
        do {
            _ = try archive.extract(entry) { chunk in
                guard contents.count + chunk.count <= size else { throw Oversized() }
                contents.append(chunk)
            }
        } catch is Oversized {
            throw bad("\(name) inflates past its declared size")
        } catch {
            throw bad("\(name): \(reason(error))")
        }
        guard contents.count == size else { throw bad("\(name) is shorter than its declared size") }
        return contents
    }

    private struct Oversized: Error {}

    /// ZIPFoundation's error as a few words.
    private static func reason(_ error: any Error) -> String {
        switch error {
        case Archive.ArchiveError.invalidCRC32: "fails its CRC-32 check"
        case Archive.ArchiveError.invalidCompressionMethod: "uses a compression method other than stored or deflate"
        case Archive.ArchiveError.missingEndOfCentralDirectoryRecord: "no end-of-central-directory record"
        case is Archive.ArchiveError: "\(error)"
        default: "does not inflate (\(error))"
        }
    }

    /// The archive's bytes: every file deflated, the DOS time of `date` (UTC).
    package func encoded(date: Date = Date()) -> Data {
        // An archive in memory, written by ZIPFoundation: only memory allocation can fail here.
        guard let archive = try? Archive(data: Data(), accessMode: .create, pathEncoding: nil) else { return Data() }
        for (name, contents) in files {
            try? archive.addEntry(
                with: name,
                type: .file,
                uncompressedSize: Int64(contents.count),
                modificationDate: date,
                compressionMethod: .deflate
            ) { position, size in
                contents.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        return archive.data ?? Data()
    }
}
