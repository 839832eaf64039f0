import CJemalloc

/// How the process uses its heap (jemalloc, linked in; its settings are in CJemalloc).
///
/// Why jemalloc and not glibc's malloc: a scan is allocation-heavy in Swift, libexif and SQLite
/// alike, on many threads, and jemalloc's per-thread caches make it faster at the same RSS once
/// the scan's freed pages are returned (docs/benchmarks.md).
public enum HeapTuning {
    /// Returns every freed page to the system now (after a scan, so RSS shows what the mount
    /// holds), instead of in a second or so.
    public static func trim() {
        // "arena.<i>.purge" with i = MALLCTL_ARENAS_ALL (4096): every arena.
        _ = albumfs_mallctl("arena.4096.purge", nil, nil, nil, 0)
    }

    /// jemalloc's version, when it is the allocator (nil if it is not linked: then the settings
    /// and `trim` do nothing).
    public static var allocator: String? {
        var version: UnsafePointer<CChar>?
        var size = MemoryLayout<UnsafePointer<CChar>?>.size
        guard albumfs_mallctl("version", &version, &size, nil, 0) == 0, let version else { return nil }
        return "jemalloc " + String(cString: version)
    }
}
