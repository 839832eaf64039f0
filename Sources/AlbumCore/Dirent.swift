import Glibc

/// The name in a `readdir` entry, read in place.
///
/// Copying `d_name` (a 256-byte tuple) reads past the end of a short record that ends a page and
/// crashed the daemon on a 100,000-photo library; this reads up to the NUL where the record is.
public func direntName(_ entry: UnsafeMutablePointer<dirent>) -> String {
    let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    let name = UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self)
    return String(decoding: UnsafeBufferPointer(start: name, count: strlen(name)).lazy.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Whether the name in a `readdir` entry is valid UTF-8 (a name that is not cannot be shown, nor
/// opened again from its decoded form).
public func direntNameIsUTF8(_ entry: UnsafeMutablePointer<dirent>) -> Bool {
    let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    let name = UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self)
    return String(validatingCString: name) != nil
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
