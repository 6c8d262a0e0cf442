import CZlib
import Foundation

/// zlib, as UnionPay's file transfers use it: `fileContent` is the Base64 of a zlib stream
/// (RFC 1950; the SDKs' `gzcompress`/`Deflater`), and the ZIP inside it holds raw-deflated
/// entries (RFC 1951). The system's zlib does the work.
enum Zlib {
    /// The most a decompression may produce: a reconciliation file of a busy merchant is a few
    /// megabytes; anything far beyond that is refused rather than held in memory.
    static let maximumOutput = 64 << 20

    enum Format {
        /// RFC 1950 (header and Adler-32 trailer).
        case zlib
        /// RFC 1951 (no header), as ZIP entries carry it.
        case raw

        var windowBits: Int32 { self == .zlib ? 15 : -15 }
    }

    static func compress(_ data: Data, format: Format) -> Data {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream,
                Z_DEFAULT_COMPRESSION,
                Z_DEFLATED,
                format.windowBits,
                8,
                Z_DEFAULT_STRATEGY,
                ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size)
            ) == Z_OK
        else { return Data() }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))) + 16)
        var input = [UInt8](data)
        let produced: Int = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBytes { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(outBuffer.count)
                _ = deflate(&stream, Z_FINISH)
                return Int(stream.total_out)
            }
        }
        return output.prefix(produced)
    }

    /// The decompressed bytes, or `nil` when `data` is not a complete stream of `format` or
    /// would exceed ``maximumOutput``.
    static func decompress(_ data: Data, format: Format, limit: Int = maximumOutput) -> Data? {
        var stream = z_stream()
        guard inflateInit2_(&stream, format.windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var input = [UInt8](data)
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var status: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            while status == Z_OK {
                chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    output.append(outBuffer.baseAddress!, count: outBuffer.count - Int(stream.avail_out))
                }
                if output.count > limit { status = Z_MEM_ERROR }
                if status == Z_BUF_ERROR && stream.avail_in == 0 { break }
            }
        }
        return status == Z_STREAM_END ? output : nil
    }

    static func crc32(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { buffer in
            UInt32(CZlib.crc32(0, buffer.bindMemory(to: Bytef.self).baseAddress, uInt(buffer.count)))
        }
    }
}
