// swift-tools-version:6.0
import PackageDescription

// Data flows one way: source folder → AlbumMetadata (scan, EXIF) → AlbumLive's ScanPipeline →
// index (AlbumIndex's LibraryIndex) → AlbumCore views → AlbumVFS (POSIX terms) → AlbumFUSE
// (kernel). See docs/design.md.
let package = Package(
    name: "albumfs",
    products: [
        .executable(name: "albumfs", targets: ["albumfs"]),
        // The parsers of untrusted bytes under libFuzzer (scripts/fuzz), or a replay of inputs.
        .executable(name: "albumfs-fuzz", targets: ["AlbumFuzz"]),
    ],
    targets: [
        // Tiny system-library shims: a module map and a header, no logic.
        .systemLibrary(name: "CFuse3", path: "Sources/CFuse3"),
        .systemLibrary(name: "CExif", path: "Sources/CExif"),
        .systemLibrary(name: "CTurboJPEG", path: "Sources/CTurboJPEG"),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG"),
        .systemLibrary(name: "CWebP", path: "Sources/CWebP"),
        .systemLibrary(name: "CGIF", path: "Sources/CGIF"),
        .systemLibrary(name: "CTIFF", path: "Sources/CTIFF"),
        .systemLibrary(name: "CSysXattr", path: "Sources/CSysXattr"),
        .systemLibrary(name: "CSysVfs", path: "Sources/CSysVfs"),
        .systemLibrary(name: "CSQLite3", path: "Sources/CSQLite3"),
        .systemLibrary(name: "CXXHash", path: "Sources/CXXHash"),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib"),
        .systemLibrary(name: "CMD", path: "Sources/CMD"),
        // jemalloc as the process's malloc, its settings and its control call (docs/design.md).
        // (Not linked in a ThreadSanitizer build, whose allocator must serve every allocation: scripts/tsan.)
        .target(name: "CJemalloc", linkerSettings: Context.environment["ALBUMFS_NO_JEMALLOC"] == nil ? [.linkedLibrary("jemalloc")] : []),
        // Batched reads through io_uring: three calls over liburing, whose header Swift cannot import.
        .target(name: "CURing", linkerSettings: [.linkedLibrary("uring")]),
        // A huge PNG read row by row (libpng's longjmp kept in C): docs/thumbnails.md.
        .target(name: "CPNGRows", linkerSettings: [.linkedLibrary("png16")]),
        // A JPEG decoded as its file is read (libjpeg's longjmp kept in C): docs/thumbnails.md.
        .target(name: "CJPEGStream", linkerSettings: [.linkedLibrary("jpeg")]),
        // libheif's API, the library loaded on first use (its codecs cost every start otherwise).
        // dlopen on first use, shared by the two libraries loaded so.
        .target(name: "CLoader"),
        .target(name: "CHeif", dependencies: ["CLoader"]),
        // FFmpeg's API (video posters, the sample's videos), the libraries loaded on first use.
        .target(name: "CFFmpeg", dependencies: ["CLoader"]),
        // libjxl's API (JPEG XL thumbnails, the sample's JPEG XL files), the library loaded on first use.
        .target(name: "CJXL", dependencies: ["CLoader"]),
        // LibRaw's API (camera RAWs' thumbnails, in the render workers only), loaded on first use.
        .target(name: "CRaw", dependencies: ["CLoader"]),
        // libgeonames's city table (places/, a photo's time zone), loaded on first use.
        .target(name: "CGeonames", dependencies: ["CLoader"]),
        // libexif's allocations for one EXIF block from an arena of the reading thread.
        .target(name: "CExifArena", linkerSettings: [.linkedLibrary("exif")]),

        // Opening beneath SOURCE with no link followed: openat2, which glibc does not wrap.
        .target(name: "CSysOpen"),
        // A render worker's sandbox: descriptors over a socket, close_range, a seccomp filter.
        .target(name: "CSandbox", linkerSettings: [.linkedLibrary("seccomp")]),

        .target(name: "AlbumSystem", dependencies: ["CSysOpen"]),
        .target(name: "AlbumCore", dependencies: ["AlbumSystem", "CGeonames"]),
        .target(name: "AlbumMetadata", dependencies: ["AlbumSystem", "AlbumCore", "CExif", "CExifArena", "CURing", "CZlib", "CSysVfs", "CXXHash"]),
        .target(name: "AlbumSample", dependencies: ["AlbumSystem", "AlbumCore", "AlbumThumbnails", "CTurboJPEG", "CJPEGStream", "CPNG", "CWebP", "CGIF", "CTIFF", "CZlib", "CHeif", "CFFmpeg", "CJXL"]),
        .target(name: "AlbumThumbnails", dependencies: ["AlbumSystem", "AlbumCore", "AlbumMetadata", "CSandbox", "CTurboJPEG", "CJPEGStream", "CPNG", "CPNGRows", "CWebP", "CGIF", "CTIFF", "CHeif", "CFFmpeg", "CJXL", "CRaw", "CZlib", "CMD"]),
        .target(name: "AlbumIndex", dependencies: ["AlbumSystem", "AlbumCore", "CSQLite3", "CXXHash"]),
        .target(name: "AlbumVFS", dependencies: ["AlbumSystem", "AlbumCore"]),
        .target(name: "AlbumFUSE", dependencies: ["AlbumSystem", "AlbumVFS", "CFuse3"]),
        .target(name: "AlbumLive", dependencies: ["AlbumSystem", "AlbumCore", "AlbumMetadata", "AlbumVFS", "CJemalloc", "CXXHash"]),
        .executableTarget(
            name: "albumfs",
            dependencies: ["AlbumSystem", "AlbumCore", "AlbumIndex", "AlbumLive", "AlbumMetadata", "AlbumSample", "AlbumThumbnails", "AlbumVFS",
                           "AlbumFUSE"]),
        .executableTarget(name: "AlbumFuzz", dependencies: ["AlbumSystem", "AlbumCore", "AlbumMetadata", "AlbumIndex", "AlbumThumbnails"]),

        .testTarget(name: "AlbumSystemTests", dependencies: ["AlbumSystem", "AlbumCore"]),
        .testTarget(name: "AlbumCoreTests", dependencies: ["AlbumSystem", "AlbumCore"]),
        .testTarget(name: "AlbumMetadataTests", dependencies: ["AlbumSystem", "AlbumMetadata", "AlbumSample", "AlbumLive"]),
        .testTarget(name: "AlbumIndexTests", dependencies: ["AlbumSystem", "AlbumIndex", "AlbumCore"]),
        .testTarget(name: "AlbumThumbnailsTests", dependencies: ["AlbumSystem", "AlbumThumbnails", "AlbumMetadata", "AlbumSample", "CTurboJPEG"]),
        .testTarget(name: "AlbumVFSTests", dependencies: ["AlbumSystem", "AlbumVFS", "AlbumCore", "AlbumLive"]),
        .testTarget(name: "AlbumFUSETests", dependencies: ["AlbumSystem", "AlbumFUSE", "CFuse3"]),
        // The command line parsed without a mount (`@testable import albumfs`).
        .testTarget(name: "albumfsTests", dependencies: ["albumfs"]),
        .testTarget(name: "AlbumLiveTests", dependencies: ["AlbumSystem", "AlbumLive", "AlbumCore", "AlbumIndex", "AlbumSample", "CJemalloc"]),
        // Mounts the built `albumfs` binary for real; it must be built first (scripts/test does).
        .testTarget(name: "MountTests", dependencies: ["AlbumSystem", "AlbumSample", "AlbumCore", "CSysXattr", "CZlib"]),
    ]
)
