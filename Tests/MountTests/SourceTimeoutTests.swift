import AlbumSample
import AlbumSystem
import Foundation
import Glibc
import XCTest

/// `-o source_timeout` where NetworkStorageTests do not go: its default, and `ln -s` into
/// `picked/`, which reads the photo to hash it.
final class SourceTimeoutTests: SampleLibraryTestCase {
    /// The sftp-server behind an sshfs SOURCE stopped, on a mount told no `source_timeout`: the
    /// first read of a photo answers EIO after the default 30 s (docs/cli.md), not sooner and not
    /// never; the server back, the same read answers byte-identical.
    func testTheDefaultTimeoutAnswersEIOAfterThirtySeconds() throws {
        let share = try SshfsShare(serving: source.path, at: state + "/share", scratch: state)
        defer { share.unmount() }
        let m = try Mount(source: share.path, options: ["-o", "index=\(state!)/index.sqlite"])
        let photos = try XCTUnwrap(readdirNames(m.path("non-screenshots"))).sorted()
        XCTAssertGreaterThan(photos.count, 2)

        share.stall()
        let start = Date()
        let read = readFile(m.path("non-screenshots/" + photos[1]))
        let waited = Date().timeIntervalSince(start)
        XCTAssertEqual(read.failure?.code, EIO)
        XCTAssertGreaterThan(waited, 25, "it waits the default 30 s for the server")
        XCTAssertLessThan(waited, 40, "then answers EIO")
        XCTAssertEqual(daemonStatus(m.mountpoint)["library_state"], "stalled")

        share.resume()
        XCTAssertTrue(eventually(10) { daemonStatus(m.mountpoint)["library_state"] == "available" }, "the stuck read returned")
        let original = try XCTUnwrap(xattr(m.path("non-screenshots/" + photos[1]), "user.albumfs.source"))
        XCTAssertEqual(try readFile(m.path("non-screenshots/" + photos[1])).get(), Array(try Data(contentsOf: URL(fileURLWithPath: original))))
        m.finish(allowing: ["has not answered for 30 s", "answers again"])
        XCTAssertTrue(m.stderr.contains("\(share.path) has not answered for 30 s: reads of its files answer EIO until it does"), m.stderr)
    }

    /// `ln -s` into `picked/` has no deadline (docs/errno.md: hashing a long video from a share
    /// may rightly take longer than `source_timeout`): on a stalled server it waits past the
    /// timeout without making the pick (the status counts none), and once the server answers it
    /// is made.
    func testAPickOnAStalledServerWaitsForItAndIsMadeWhenItAnswers() throws {
        let share = try SshfsShare(serving: source.path, at: state + "/share", scratch: state)
        defer { share.unmount() }
        let m = try Mount(source: share.path, options: ["-o", "index=\(state!)/index.sqlite", "-o", "source_timeout=2"])
        let photos = try XCTUnwrap(readdirNames(m.path("non-screenshots"))).sorted()
        XCTAssertGreaterThan(photos.count, 2)
        let picked = m.path("picked")
        XCTAssertEqual(readdirNames(picked), [])
        XCTAssertEqual(daemonStatus(m.mountpoint)["picks"], "0")

        share.stall()
        let done = DispatchSemaphore(value: 0)
        let result = LinkAnswer()
        let link = picked + "/" + photos[1]
        Thread.detachNewThread {
            let answer = symlink("../non-screenshots/" + photos[1], link) == 0 ? 0 : errno
            result.code.withLock { $0 = answer }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .timedOut, "the pick waits on the server past source_timeout")
        XCTAssertNil(result.code.withLock { $0 })
        // (Not `ls picked/`: the kernel holds picked/'s lock for the whole `symlink`, so a listing
        // of it waits with it.)
        XCTAssertEqual(daemonStatus(m.mountpoint)["picks"], "0", "no pick made while its photo cannot be read")
        XCTAssertEqual(readFile(m.path("non-screenshots/" + photos[2])).failure?.code, EIO, "a read has its deadline meanwhile")

        share.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 15), .success, "the server back, the pick is made")
        XCTAssertEqual(result.code.withLock { $0 }, 0)
        XCTAssertEqual(readdirNames(picked), [photos[1]])
        XCTAssertEqual(daemonStatus(m.mountpoint)["picks"], "1")
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: link))
        m.finish(allowing: ["has not answered for 2 s", "answers again"])
    }
}

/// What a `symlink(2)` made on another thread answered: 0 or its errno, nil while it waits.
private final class LinkAnswer: Sendable {
    let code = Locked<Int32?>(nil)
}
