import CompressNIO
import Foundation
import NIOCore

/// zlib, as UnionPay's file transfers use it: `fileContent` is the Base64 of a zlib stream
/// (RFC 1950; the SDKs' `gzcompress`/`Deflater`). CompressNIO does the work (over the system's
/// zlib); the ZIP inside is ``ZipArchive``'s.
enum Zlib {
    /// The most a decompression may produce: a reconciliation file of a busy merchant is a few
    /// megabytes; anything far beyond that is refused rather than held in memory.
    static let maximumOutput = 64 << 20

    /// The one format UnionPay's transfers use (ZIP entries are ZIPFoundation's to inflate).
    enum Format {
        /// RFC 1950 (header and Adler-32 trailer).
        case zlib

        var algorithm: CompressionAlgorithm { .zlib() }
    }

    static func compress(_ data: Data, format: Format) -> Data {
        var input = ByteBuffer(bytes: data)
        // Compressing into a buffer CompressNIO sizes from zlib's own bound cannot fail.
        guard let output = try? input.compress(with: format.algorithm) else { return Data() }
        return Data(output.readableBytesView)
    }

    /// The decompressed bytes, or `nil` when `data` is not one complete stream of `format` or
    /// would exceed `limit`.
    static func decompress(_ data: Data, format: Format, limit: Int = maximumOutput) -> Data? {
        var input = ByteBuffer(bytes: data)
        // One byte of room past the limit: a stream that fills its buffer exactly is not refused.
        guard let output = try? input.decompress(with: format.algorithm, maxSize: limit + 1),
            output.readableBytes <= limit
        else { return nil }
        let inflated = Data(output.readableBytesView)
        // CompressNIO stops where the input does: a stream cut short (or followed by other bytes)
        // inflates without an error. Its last four bytes must be the Adler-32 of what it held.
        guard data.suffix(4).elementsEqual(adler32(inflated)) else { return nil }
        return inflated
    }

    /// RFC 1950's checksum, big-endian, as a zlib stream ends with it.
    static func adler32(_ data: Data) -> [UInt8] {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for chunk in stride(from: 0, to: data.count, by: 5552) {
            for byte in data[(data.startIndex + chunk)..<(data.startIndex + min(data.count, chunk + 5552))] {
                a += UInt32(byte)
                b += a
            }
            a %= 65521
            b %= 65521
        }
        let sum = b << 16 | a
        return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: sum >> $0) }
    }
}
