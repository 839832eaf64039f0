import Glibc

/// The name in a `readdir` entry, read in place.
///
/// Copying `d_name` (a 256-byte tuple) reads past the end of a short record that ends a page and
/// crashed the daemon on a 100,000-photo library; this reads up to the NUL where the record is.
public func direntName(_ entry: UnsafeMutablePointer<dirent>) -> String {
    direntNameChecked(entry).name
}

/// The name in a `readdir` entry, its bytes kept (`FileNameBytes`: a name that is not valid
/// UTF-8 is shown and opened as it is), and whether it is valid UTF-8.
public func direntNameChecked(_ entry: UnsafeMutablePointer<dirent>) -> (name: String, isUTF8: Bool) {
    let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    let name = UnsafeRawPointer(entry).advanced(by: offset)
    if let valid = String(validatingCString: name.assumingMemoryBound(to: CChar.self)), !valid.utf8.contains(0xF4) { return (valid, true) }
    // (Bytes as UInt8, contiguous: String's fast path, not a conversion element by element.)
    let bytes = UnsafeBufferPointer(start: name.assumingMemoryBound(to: UInt8.self), count: strlen(name.assumingMemoryBound(to: CChar.self)))
    return (FileNameBytes.string(bytes), String(validating: bytes, as: UTF8.self) != nil)
}

/// The type (`DT_REG`, `DT_DIR`, `DT_LNK`, `DT_UNKNOWN`…) and inode number in a `readdir`
/// entry, read in place for the same reason as the name.
public func direntTypeAndInode(_ entry: UnsafeMutablePointer<dirent>) -> (type: UInt8, inode: UInt64) {
    let raw = UnsafeRawPointer(entry)
    return (raw.load(fromByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_type)!, as: UInt8.self),
            UInt64(raw.load(fromByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_ino)!, as: ino_t.self)))
}

/// Whether the open folder `dir` lists nothing but `.` and `..` (reads its entries).
public func folderIsEmpty(_ dir: OpaquePointer) -> Bool {
    while let entry = readdir(dir) {
        let name = direntName(entry)
        if name != "." && name != ".." { return false }
    }
    return true
}
