/// Big-endian integers out of a byte array, bounds-checked.
extension Array where Element == UInt8 {
    func be16(_ at: Int) -> Int? {
        guard at >= 0, at + 2 <= count else { return nil }
        return Int(self[at]) << 8 | Int(self[at + 1])
    }

    func be32(_ at: Int) -> Int? {
        guard at >= 0, at + 4 <= count else { return nil }
        return Int(self[at]) << 24 | Int(self[at + 1]) << 16 | Int(self[at + 2]) << 8 | Int(self[at + 3])
    }

    func starts(with prefix: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset + prefix.count <= count else { return false }
        return self[offset..<offset + prefix.count].elementsEqual(prefix)
    }
}
