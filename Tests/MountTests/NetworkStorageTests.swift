import AlbumSample
import Foundation
import Glibc
import XCTest

/// A library on network storage whose server stops answering: no request waits for ever.
final class NetworkStorageTests: SampleLibraryTestCase {
    /// The time `body` takes, in seconds.
    func timed<T>(_ body: () -> T) -> (T, Double) {
        let start = Date()
        let result = body()
        return (result, Date().timeIntervalSince(start))
    }

    /// The sftp-server behind an sshfs SOURCE stopped (SIGSTOP): the first read of a photo not
    /// read before answers EIO after `source_timeout` (2 s here), not never; the status says
    /// `library_state: stalled`; reads after it, a thumbnail not made yet and `statfs` answer EIO
    /// at once; listings, `stat`, attributes and the status answer from the index all along. The
    /// server back (SIGCONT): the storage answers again, and so do reads, byte-identical.
    func testAStalledServerGivesEIOAfterTheTimeoutAndListingsKeepAnswering() throws {
        let share = try SshfsShare(serving: source.path, at: state + "/share", scratch: state)
        defer { share.unmount() }
        try assertAStalledServerGivesEIO(share.path, stall: share.stall, resume: share.resume)
    }

    /// A library on an `rclone mount` of a WebDAV share (rclone's own server on loopback): every
    /// photo listed as from the folder itself, read byte for byte, a thumbnail made, a remount that
    /// reads nothing again; then its server stopped, as above.
    func testALibraryOnAnRcloneWebDAVMountIsWholeAndItsStallIsBounded() throws {
        let share = try RcloneShare(serving: source.path, at: state + "/share", scratch: state)
        defer { share.unmount() }
        let options = ["-o", "index=\(state!)/webdav.sqlite", "-o", "cache_dir=\(state!)/webdav-thumbnails"]
        let local = try Mount(source: source.path)
        let expected = readdirNames(local.path("non-screenshots"))?.sorted()
        local.finish()
        var m = try Mount(source: share.path, options: options)
        XCTAssertEqual(readdirNames(m.path("non-screenshots"))?.sorted(), expected, "every photo, as from the folder itself")
        let name = "IMG_1234.JPG"
        let original = try XCTUnwrap(source.items.first { $0.path.hasSuffix("/" + name) })
        XCTAssertEqual(try readFile(m.path("non-screenshots/" + name)).get(), original.bytes)
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get().count, 30_000)
        m.finish()
        m = try Mount(source: share.path, options: options)
        XCTAssertEqual(daemonStatus(m.mountpoint)["header_reads"], "0", "nothing read again")
        m.finish()
        try assertAStalledServerGivesEIO(share.path, stall: share.stall, resume: share.resume)
    }

    func assertAStalledServerGivesEIO(_ library: String, stall: () -> Void, resume: () -> Void) throws {
        let m = try Mount(source: library, options: ["-o", "index=\(state!)/index.sqlite", "-o", "cache_dir=\(state!)/thumbnails",
                                                     "-o", "source_timeout=2"])
        let photos = try XCTUnwrap(readdirNames(m.path("non-screenshots"))).sorted()
        XCTAssertGreaterThan(photos.count, 10)
        XCTAssertEqual(daemonStatus(m.mountpoint)["library_state"], "available")
        XCTAssertNotNil(try? readFile(m.path("non-screenshots/" + photos[0])).get(), "read while the server answers")

        stall()
        let (first, waited) = timed { readFile(m.path("non-screenshots/" + photos[1])) }
        XCTAssertEqual(first.failure?.code, EIO)
        XCTAssertGreaterThan(waited, 1.5, "it waited for the server")
        XCTAssertLessThan(waited, 8, "then answered EIO")
        XCTAssertEqual(daemonStatus(m.mountpoint)["library_state"], "stalled")
        for name in photos[2...4] {
            let (read, took) = timed { readFile(m.path("non-screenshots/" + name)) }
            XCTAssertEqual(read.failure?.code, EIO, name)
            XCTAssertLessThan(took, 1, "\(name): at once while the storage is stalled")
        }
        let thumbnail = readdirNames(m.path("thumbnails/200x200"))?.first { !$0.hasPrefix(".") }
        let (thumb, thumbTook) = timed { readFile(m.path("thumbnails/200x200/" + (thumbnail ?? "none"))) }
        XCTAssertEqual(thumb.failure?.code, EIO)
        XCTAssertLessThan(thumbTook, 1)
        var fs = statvfs()
        let (statfsResult, statfsTook) = timed { (statvfs(m.mountpoint, &fs), errno) }
        XCTAssertEqual(statfsResult.0, -1)
        XCTAssertEqual(statfsResult.1, EIO)
        XCTAssertLessThan(statfsTook, 1)
        // What the index holds still answers.
        let (listed, listTook) = timed { readdirNames(m.path("non-screenshots"))?.sorted() }
        XCTAssertEqual(listed, photos)
        XCTAssertLessThan(listTook, 1)
        XCTAssertNotNil(statOf(m.path("non-screenshots/" + photos[5])))
        XCTAssertNotNil(xattr(m.path("non-screenshots/" + photos[5]), "user.albumfs.capture_time"))

        resume()
        XCTAssertTrue(eventually(10) { daemonStatus(m.mountpoint)["library_state"] == "available" }, "the stuck read returned")
        let original = try XCTUnwrap(xattr(m.path("non-screenshots/" + photos[2]), "user.albumfs.source"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
        XCTAssertEqual(try readFile(m.path("non-screenshots/" + photos[2])).get(), Array(bytes))
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/" + (thumbnail ?? "none"))).get().count, 30_000)
        m.finish(allowing: ["has not answered for 2 s", "answers again"])
        XCTAssertTrue(m.stderr.contains("\(library) has not answered for 2 s: reads of its files answer EIO until it does"), m.stderr)
    }
}
