import AlbumCore
import AlbumSample
import Foundation
import Glibc
import XCTest

/// What a user sees of the sample library, all of it: every path in readdir order, each entry's
/// type, mode, size and mtime, and the decisions in its attributes, compared with the reviewed
/// file Tests/Golden/sample-tree.txt. Any change in what users see shows as a diff of that file;
/// `scripts/update-golden` writes it anew from the code as it is.
final class GoldenTreeTests: XCTestCase {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Golden/sample-tree.txt").path
    /// The attributes shown, in this order (`user.albumfs.source` relative to SOURCE).
    static let attributes = ["source", "capture_time", "date_source", "date_rejected", "screenshot", "format", "orientation", "rating", "kinds", "burst", "place", "time_zone", "live_photo", "problems"]

    func testTheSampleLibraryShowsAsTheGoldenTree() throws {
        let source = try SampleSource()
        defer { source.remove() }
        // Modes as a usual umask leaves them, whatever the test runner's; times in UTC, so a
        // capture time without a zone reads the same on every machine.
        XCTAssertEqual(shell("find '\(source.path)' -type f -exec chmod 644 {} + && find '\(source.path)' -type d -exec chmod 755 {} +").status, 0)
        let m = try Mount(source: source.path, options: ["-o", "uid=1000,gid=1000"], launcher: ["/usr/bin/env", "TZ=UTC"])
        // The tree once the hash pass of duplicates/similar/ has shown its groups.
        XCTAssertTrue(eventually(60) { daemonStatus(m.mountpoint)["similar"] == "done" }, "\(daemonStatus(m.mountpoint))")
        let tree = Self.lines(of: m, prefix: source.path + "/").joined(separator: "\n") + "\n"
        m.finish()
        if ProcessInfo.processInfo.environment["ALBUMFS_UPDATE_GOLDEN"] == "1" {
            try tree.write(toFile: Self.golden, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOfFile: Self.golden, encoding: .utf8)
        guard tree != expected else { return }  // vacuous-ok: the tree is the golden one: the test passes here, a difference fails below
        let seen = NSTemporaryDirectory() + "albumfs-golden-\(getpid()).txt"
        try tree.write(toFile: seen, atomically: true, encoding: .utf8)
        defer { unlink(seen) }
        let diff = runCommand("/usr/bin/diff", ["-u", Self.golden, seen]).stdout
        XCTFail("the tree users see changed (if meant: scripts/update-golden, and review the diff):\n\(diff.prefix(6000))")
    }

    /// One line per entry, depth first in readdir order: path, type and mode, size (files),
    /// mtime (UTC), then the attributes that are there.
    static func lines(of m: Mount, prefix: String) -> [String] {
        var out: [String] = []
        func walk(_ relative: String) {
            for name in readdirNames(m.path(relative)) ?? [] {
                let path = relative.isEmpty ? name : relative + "/" + name
                guard let st = statOf(m.path(path)) else { out.append(path + " (stat failed: \(errno))"); continue }
                let isFolder = st.st_mode & S_IFMT == S_IFDIR
                var line = "\(path)\t\(isFolder ? "d" : "f")\(String(st.st_mode & 0o7777, radix: 8))\t\(isFolder ? "-" : String(st.st_size))"
                // An empty folder (picked/, favorites/ of the sample, which rates nothing) shows
                // the time of the mount: said, not written. So do filter/ and its README.txt,
                // which hold no photo.
                let empty = isFolder && readdirNames(m.path(path))?.isEmpty == true
                    || path == LibraryViews.filter || path.hasPrefix(LibraryViews.filter + "/")
                line += "\t" + (empty ? "(mount time)" : Self.utc(st.st_mtim.tv_sec))
                if path.hasPrefix(".albumfs") {
                    out.append(path)
                    continue
                }
                for key in Self.attributes {
                    guard var value = xattr(m.path(path), "user.albumfs." + key) else { continue }
                    if key == "source", value.hasPrefix(prefix) { value = String(value.dropFirst(prefix.count)) }
                    line += "\t\(key)=\(value)"
                }
                out.append(line)
                if isFolder { walk(path) }
            }
        }
        walk("")
        return out
    }

    static func utc(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
