/// File names as the kernel has them, bytes, carried in Swift `String`s.
///
/// A Linux name is any bytes but `/` and NUL; an old camera's or Windows' Latin-1 name
/// (`caf\xe9.jpg`) is no valid UTF-8, and a `String` cannot hold it as it is. So a name is decoded
/// with each byte that is not part of valid UTF-8 kept as one scalar of its own, U+10FF00 plus the
/// byte (the last 256 code points of Supplementary Private Use Area-B, which no real name uses),
/// and encoded back byte for byte: any two different byte strings are two different strings, and
/// what `readdir` lists reads back with `lookup` and opens the same file. (A valid name holding
/// one of those scalars has its bytes kept the same way, so the mapping goes both ways for every
/// name.) Python's `surrogateescape` does the same with lone surrogates, which Swift cannot hold.
public enum FileNameBytes {
    static let escapeBase: UInt32 = 0x10_FF00

    /// The string for a name's bytes.
    public static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        // (The common case in one pass: valid UTF-8 with no 0xF4 lead byte, so none of the kept scalars.)
        if !bytes.contains(0xF4), let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var at = 0
        func keep(_ count: Int) {
            for i in at..<(at + count) { scalars.append(Unicode.Scalar(escapeBase + UInt32(bytes[i]))!) }
        }
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if scalar.value >= escapeBase { keep(encoded.count) } else { scalars.append(scalar) }
                at += encoded.count
            case .error(let length):
                keep(length)
                at += length
            case .emptyInput:
                return String(scalars)
            }
        }
    }

    public static func string(_ bytes: [UInt8]) -> String { bytes.withUnsafeBufferPointer { string($0) } }

    /// The string for a NUL-terminated name, as the kernel hands it over (FUSE requests).
    public static func string(cString: UnsafePointer<CChar>) -> String {
        var length = 0
        while cString[length] != 0 { length += 1 }
        return cString.withMemoryRebound(to: UInt8.self, capacity: length) { string(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// The bytes of a name (or a path of them) as the kernel has them.
    public static func bytes(_ name: String) -> [UInt8] {
        guard name.utf8.contains(0xF4) else { return Array(name.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars {
            if scalar.value >= escapeBase { out.append(UInt8(scalar.value - escapeBase)) } else { out += Array(String(scalar).utf8) }
        }
        return out
    }

    /// Runs `body` with the name's bytes as a NUL-terminated C string.
    public static func withCString<T>(_ name: String, _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        guard name.utf8.contains(0xF4) else { return try name.withCString(body) }
        let bytes = self.bytes(name) + [0]
        return try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// How many bytes the name has on disk (its length limit is in those).
    public static func count(_ name: String) -> Int {
        name.utf8.contains(0xF4) ? bytes(name).count : name.utf8.count
    }
}
