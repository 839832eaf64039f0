import CZlib

/// zlib, for the compressed text of PNG files (`zTXt`, compressed `iTXt`) and their chunk CRCs.
enum Zlib {
    /// What inflating a zlib stream gave.
    enum Inflated: Equatable {
        case inflated([UInt8])
        /// It would have passed the limit: inflating stopped there.
        case overLimit
        case damaged
    }

    /// The text inside a zlib stream, inflating no further than `limit` bytes: metadata is small,
    /// and a chunk that inflates to gigabytes (a "zip bomb") must not take the daemon's memory.
    /// The corresponding C functions are `inflateInit`, `inflate`, `inflateEnd`.
    static func inflate(_ data: ArraySlice<UInt8>, limit: Int) -> Inflated {
        guard !data.isEmpty else { return .damaged }
        var stream = z_stream()
        guard inflateInit_(&stream, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return .damaged }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        // One byte more than the limit: a stream that fills it is over.
        var chunk = [UInt8](repeating: 0, count: min(limit + 1, max(4096, data.count * 4)))
        return data.withUnsafeBufferPointer { input -> Inflated in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            while true {
                let room = min(chunk.count, limit + 1 - output.count)
                let status = chunk.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(room)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                output += chunk[0..<(room - Int(stream.avail_out))]
                if output.count > limit { return .overLimit }
                switch status {
                case Z_STREAM_END: return .inflated(output)
                case Z_OK: continue
                // Z_BUF_ERROR with input left means no progress was possible: the stream is cut short.
                default: return .damaged
                }
            }
        }
    }

    /// The CRC-32 that ends every PNG chunk (over its type and data).
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, UInt32($0.count))) }
    }
}
