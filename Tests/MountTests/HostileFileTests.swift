import AlbumCore
import AlbumSample
import Foundation
import Glibc
import XCTest

/// docs/security.md, "what runs where": every decode runs in a sandboxed worker process, so a
/// file built to crash a C decoder costs its own thumbnail, never the mount.
final class HostileFileTests: XCTestCase {
    /// A 2x2 grid HEIC whose third tile has no item information (`infe`): libheif 1.19's tile
    /// decode dereferences NULL on it. The decode runs in a worker, which dies; the thumbnail
    /// answers EIO, `.albumfs/errors` names the file and the signal, the status counts the
    /// worker that ended, and the mount goes on: the original reads byte-identical, every other
    /// thumbnail renders (in a worker started anew), read meanwhile by another user too.
    func testADecoderThatCrashesCostsOneThumbnailNeverTheMount() throws {
        let folder = makeTempFolder("hostile")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertEqual(chmod(folder, 0o755), 0)
        let heic = try Self.gridHEICWithATileWithoutItsInfo()
        XCTAssertLessThan(heic.count, 8 << 10, "a small file")
        try SampleLibrary.writeFile(folder + "/IMG_0001.HEIC", heic, mtime: SampleLibrary.defaultMtime)
        let plain = try Encoders.jpeg(.marker(width: 640, height: 480))
        for i in 2...5 { try SampleLibrary.writeFile(folder + "/IMG_000\(i).JPG", plain, mtime: SampleLibrary.defaultMtime + Int64(i)) }
        let m = try Mount(source: folder, options: ["-o", "allow_other", "-o", "thumbnail_ahead=0"])
        XCTAssertEqual(readFile(m.path("thumbnails/200x200/IMG_0001.jpg")).failure?.code, EIO)
        let errors = (try? String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8)) ?? ""
        XCTAssertTrue(errors.hasPrefix("IMG_0001.HEIC: cannot make a thumbnail: the render worker ended during the decode (killed by signal"),
                      errors)
        XCTAssertEqual(daemonStatus(m.mountpoint)["render_worker_restarts"], "1")
        XCTAssertEqual(try readFile(m.path("non-screenshots/IMG_0001.HEIC")).get(), heic)
        for i in 2...5 {
            let other = runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/wc", "-c",
                                                        m.path("thumbnails/200x200/IMG_000\(i).jpg")], timeout: 20)
            XCTAssertEqual(other.stdout.split(separator: " ").first, "30000", "another user's read: \(other.stderr)")
            XCTAssertEqual(try readFile(m.path("non-screenshots/IMG_000\(i).JPG")).get(), plain)
        }
        XCTAssertTrue(eventually { !(readdirNames(m.path("thumbnails/200x200"))?.contains("IMG_0001.jpg") ?? true) }, "left the listing")
        XCTAssertEqual(daemonStatus(m.mountpoint)["render_worker_restarts"], "1", "the crash happened once")
        m.finish(allowing: ["cannot make a thumbnail of IMG_0001.HEIC"])
    }

    /// The sandbox a worker decodes in, entered as a worker enters it: no path opens, no socket
    /// is made, no other process is signalled; as root it runs as `nobody`, as another user as
    /// that user.
    func testTheWorkersSandboxOpensNoPathAndMakesNoSocket() throws {
        for (who, launcher) in [("root", [String]()), ("user 1234", ["/usr/bin/setpriv", "--reuid=1234", "--regid=1234", "--clear-groups"])] {
            let command = launcher + [albumfsBinary(), "render-worker", "--check-sandbox"]
            let r = runCommand(command[0], Array(command.dropFirst()), timeout: 20)
            XCTAssertEqual(r.status, 0, "\(who): \(r.stdout) \(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map(String.init)
            XCTAssertTrue(lines.first?.hasPrefix(who == "root" ? "uid 65534 euid 65534 gid 65534" : "uid 1234 euid 1234 gid 1234") == true,
                          "\(who): \(lines)")
            for tried in ["open /etc/passwd", "openat /etc/hostname", "socket AF_INET", "socket AF_UNIX", "kill the parent"] {
                XCTAssertTrue(lines.contains("\(tried): refused (Operation not permitted)"), "\(who), \(tried): \(lines)")
            }
        }
    }

    /// A 2x2 grid HEIC (tiles of 64) whose third tile item's `infe` box is renamed `free`: the
    /// item is in the grid's references and the item locations, with no item information.
    static func gridHEICWithATileWithoutItsInfo() throws -> [UInt8] {
        var heic = try Encoders.heif(.marker(width: 128, height: 128), tile: 64)
        var tiles: [Int] = []
        var at = 0
        while let found = find(Array("infe".utf8), in: heic, from: at) {
            at = found + 4
            let version = heic[found + 4]
            let type = version >= 3 ? found + 14 : found + 12
            if version >= 2, type + 4 <= heic.count, heic[type..<(type + 4)].elementsEqual("hvc1".utf8) { tiles.append(found) }
        }
        XCTAssertEqual(tiles.count, 4, "four tiles")
        heic.replaceSubrange(tiles[2]..<(tiles[2] + 4), with: Array("free".utf8))
        return heic
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        guard bytes.count >= needle.count, from <= bytes.count - needle.count else { return nil }
        return (from...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
