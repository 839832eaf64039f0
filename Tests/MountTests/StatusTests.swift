import Foundation
import Glibc
import XCTest

/// docs/status.md's keys that no other test reads, each with a value of its documented form.
final class StatusTests: SampleLibraryTestCase {
    func testTheScanAndCacheKeysHaveValuesOfTheirForm() throws {
        let m = try Mount(source: source.path, options: ["-o", "thumbnail_sizes=200x200,64x48", "-o", "cache_size=5M"])
        var status = daemonStatus(m.mountpoint)
        XCTAssertNotNil(status["last_scan_seconds"].flatMap { $0.wholeMatch(of: /\d+\.\d{3}/) }, "\(status)")
        // Every folder of the library is watched (hidden ones and NAS system folders are not scanned).
        // (Links to folders are not followed, so not watched: `lstat`.)
        let folders = (FileManager.default.enumerator(atPath: source.path)?.allObjects as? [String] ?? []).filter { path in
            var st = stat()
            return lstat(source.path + "/" + path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
                && !path.split(separator: "/").contains { $0.hasPrefix(".") || $0 == "@eaDir" }
        }
        XCTAssertEqual(status["watched_folders"], String(folders.count + 1), "the library's folder and each of its \(folders.count)")
        XCTAssertEqual(status["thumbnail_sizes"], "200x200,64x48")
        XCTAssertEqual(status["thumbnail_cache_dir"], m.cacheDir)
        XCTAssertEqual(status["thumbnail_cache_limit"], String(5 << 20))
        XCTAssertEqual(status["thumbnail_cache_bytes"], "0")
        XCTAssertEqual(status["thumbnail_cache_writes"], "ok")
        let bytes = try readFile(m.path("thumbnails/64x48/DSC01234.jpg")).get()
        status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["thumbnail_cache_bytes"], String(bytes.count), "one thumbnail cached")
        m.finish()
    }
}
