import AlbumCore
import AlbumSystem
import AlbumSample
import CSysXattr
import Foundation
import Glibc
import XCTest

/// docs/security.md, held: what a hostile file in SOURCE or another local user can and cannot do
/// to a root mount.
final class SecurityTests: SampleLibraryTestCase {
    /// A file outside SOURCE that no read through the mount may ever show.
    func makeSecret() throws -> String {
        let secret = state + "/secret.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: secret, contents: Data("SECRET, not a photo".utf8)))
        return secret
    }

    /// A photo swapped for a link to a file outside SOURCE (`ln -s SECRET .x && mv -Tf .x
    /// photo`), or its folder swapped for a link to a folder outside, is never read through:
    /// the read answers ENOENT, whatever the timing, and the library is rescanned.
    func testAPhotoOrItsFolderSwappedForALinkIsNeverFollowed() throws {
        let secret = try makeSecret()
        let outside = state + "/outside-sony"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        XCTAssertEqual(link(secret, outside + "/DSC01234.JPG"), 0)
        let original = try XCTUnwrap(FileManager.default.contents(atPath: source.path + "/Sony/DSC01234.JPG"))
        let m = try Mount(source: source.path, options: ["-o", "allow_other,default_permissions"])
        let photo = m.path("by-date/2021/2021-12/2021-12-31/DSC01234.JPG")
        for round in 0..<5 {
            // The file itself.
            XCTAssertEqual(rename(source.path + "/Sony/DSC01234.JPG", state + "/kept.jpg"), 0)
            XCTAssertEqual(symlink(secret, source.path + "/Sony/.x"), 0)
            XCTAssertEqual(rename(source.path + "/Sony/.x", source.path + "/Sony/DSC01234.JPG"), 0)
            assertNotSecret(readFile(photo), "round \(round), the file a link")
            XCTAssertEqual(unlink(source.path + "/Sony/DSC01234.JPG"), 0)
            XCTAssertEqual(rename(state + "/kept.jpg", source.path + "/Sony/DSC01234.JPG"), 0)
            // Its folder.
            XCTAssertEqual(rename(source.path + "/Sony", state + "/kept-sony"), 0)
            XCTAssertEqual(symlink(outside, source.path + "/Sony"), 0)
            assertNotSecret(readFile(photo), "round \(round), the folder a link")
            assertNotSecret(readFile(m.path("thumbnails/200x200/DSC01234.jpg")), "round \(round), its thumbnail")
            XCTAssertEqual(unlink(source.path + "/Sony"), 0)
            XCTAssertEqual(rename(state + "/kept-sony", source.path + "/Sony"), 0)
        }
        // The real file back: read again, as it was.
        XCTAssertTrue(eventually(10) { (try? readFile(photo).get()) == [UInt8](original) }, "the photo reads again once it is back")
        m.finish(allowing: ["cannot open Sony/DSC01234.JPG", "cannot make a thumbnail of Sony/DSC01234.JPG"])
    }

    private func assertNotSecret(_ result: Result<[UInt8], Errno>, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        switch result {
        case .success(let bytes):
            XCTAssertFalse(String(decoding: bytes, as: UTF8.self).contains("SECRET"), "read outside SOURCE: \(message)", file: file, line: line)
        case .failure(let e):
            XCTAssertTrue(e.code == ENOENT || e.code == EIO, "\(message): errno \(e.code)", file: file, line: line)
        }
    }

    /// A photo picked after its folder became a link to `/dev` (its name `zero`): the pick
    /// fails at once, and reads of other photos go on answering meanwhile (the pick's hash once
    /// read `/dev/zero` for ever, under the lock every open takes).
    func testAPickOfAFileWhoseFolderBecameALinkToDevFailsAtOnce() throws {
        try FileManager.default.createDirectory(atPath: source.path + "/cam", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/cam/zero",
                                                    contents: try XCTUnwrap(FileManager.default.contents(atPath: source.path + "/Sony/DSC01234.JPG"))))
        let m = try Mount(source: source.path)
        XCTAssertNotNil(statOf(m.path("non-screenshots/zero.jpg")), "a JPEG named zero shows as zero.jpg")
        XCTAssertEqual(rename(source.path + "/cam", state + "/cam"), 0)
        XCTAssertEqual(symlink("/dev", source.path + "/cam"), 0)
        let started = Date()
        let picked = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var pickErrno: Int32 = -1
        let target = m.path("non-screenshots/zero.jpg"), link = m.path("picked/zero.jpg")
        DispatchQueue.global().async {
            pickErrno = symlink(target, link) == 0 ? 0 : errno
            picked.signal()
        }
        let readStarted = Date()
        XCTAssertEqual(readAll(m.path("non-screenshots/DSCF0001.JPG")).errno, 0)
        XCTAssertLessThan(Date().timeIntervalSince(readStarted), 1, "another photo's read answers within a second")
        XCTAssertEqual(picked.wait(timeout: .now() + 10), .success, "the pick answers")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(pickErrno, ENOENT, "not the file scanned")
        XCTAssertEqual(readdirNames(m.path("picked")), [])
        m.finish(allowing: ["cannot open cam/zero", "cannot pick cam/zero"])
    }

    /// 64 slow renders at once (PNGs: no reduced-size decode) take only the few
    /// slow-work threads: listings, `stat` and reads of originals keep answering meanwhile, and
    /// every thumbnail comes. (The kernel itself sends a file's reads as background requests, at
    /// most `max_background`, 12, at once, so this holds without the slow-work threads too; they
    /// keep it true for `ln -s`, which is answered there as well, and for any limit raised.)
    func testSixtyFourSlowRendersLeaveTheMountAnswering() throws {
        let png = try SamplePNG.png(.solid(width: 1200, height: 900, 200, 30, 30))
        try FileManager.default.createDirectory(atPath: source.path + "/Big", withIntermediateDirectories: true)
        for i in 0..<64 { XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Big/big\(i).png", contents: Data(png))) }
        let m = try Mount(source: source.path)
        let group = DispatchGroup()
        let results = LockedResults()
        for i in 0..<64 {
            let path = m.path("thumbnails/200x200/big\(i).jpg")
            Thread.detachNewThread {
                group.enter()
                results.add(readAll(path))
                group.leave()
            }
        }
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["thumbnails_rendered"].flatMap(Int.init) ?? 0 >= 1 }, "renders started")
        let started = Date()
        XCTAssertNotNil(readdirNames(m.path("non-screenshots")))
        XCTAssertNotNil(statOf(m.path("by-date/2021/2021-12/2021-12-31/DSC01234.JPG")))
        XCTAssertEqual(readAll(m.path("non-screenshots/DSCF0001.JPG")).errno, 0)
        let answered = Date().timeIntervalSince(started)
        XCTAssertLessThan(answered, 1, "ls, stat and a read answered while the renders ran")
        XCTAssertTrue(eventually(120) { results.count == 64 }, "every thumbnail came")
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(results.all.allSatisfy { $0.errno == 0 && $0.bytes > 0 }, "\(results.all.filter { $0.errno != 0 })")
        m.finish()
    }

    /// PNGs downloaded from anywhere, each with 150 compressed text chunks of 4 MB: the daemon's
    /// peak memory stays under 200 MB and each file is named in `.albumfs/errors` for what was
    /// skipped. Its date (an uncompressed XMP chunk) is still read.
    func testAFolderOfTextBombsStaysUnderTheMemoryCap() throws {
        let text = String(repeating: "a", count: 4 << 20)
        let comment = SamplePNG.compressedITextChunk("Comment", text)
        let junk = SamplePNG.compressedTextChunk("junk", text)
        var png = try SamplePNG.png(.solid(width: 64, height: 48, 10, 200, 10))
        png = SamplePNG.insertingChunk("iTXt", SamplePNG.iTextChunk("XML:com.adobe.xmp", SampleXMP.xmpPacket([("photoshop:DateCreated", "2019-03-04T05:06:07")])), into: png)
        for i in 0..<150 { png = SamplePNG.insertingChunk(i % 2 == 0 ? "iTXt" : "zTXt", i % 2 == 0 ? comment : junk, into: png) }
        XCTAssertLessThan(png.count, 1 << 20)
        try FileManager.default.createDirectory(atPath: source.path + "/Downloads", withIntermediateDirectories: true)
        for i in 0..<12 {
            XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Downloads/bomb\(i).png", contents: Data(png)))
        }
        let m = try Mount(source: source.path)
        let status = readProcFile("/proc/\(m.process.processIdentifier)/status") ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? Int.max
        XCTAssertLessThan(peak, 200 << 10, "peak RSS in KiB")
        let errors = (try? String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8)) ?? ""
        for i in 0..<12 { XCTAssertTrue(errors.contains("Downloads/bomb\(i).png: metadata over the 256 KiB cap skipped (Comment)"), errors) }
        XCTAssertNotNil(statOf(m.path("by-date/2019/2019-03/2019-03-04/bomb0.png")), "dated by its XMP")
        m.finish()
    }

    /// Under `allow_other`, another user reads the library but cannot change the mounting
    /// user's `picked/`: EACCES for `ln -s`, `rm` and `mv` there.
    func testUnderAllowOtherOnlyTheMountingUserChangesPicked() throws {
        let m = try Mount(source: source.path, options: ["-o", "allow_other"])
        chmod(m.mountpoint, 0o755)
        XCTAssertEqual(symlink("../non-screenshots/DSC01234.JPG", m.path("picked/mine.jpg")), 0)
        func asNobody(_ command: String) -> CommandResult {
            runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c", command],
                       timeout: 20, environment: ["LC_ALL": "C"])
        }
        XCTAssertEqual(asNobody("cat '\(m.path("non-screenshots/DSCF0001.JPG"))' > /dev/null").status, 0, "others read the library")
        let ln = asNobody("ln -s ../non-screenshots/DSCF0001.JPG '\(m.path("picked/theirs.jpg"))'")
        XCTAssertNotEqual(ln.status, 0)
        XCTAssertTrue(ln.stderr.contains("Permission denied"), ln.stderr)
        let rm = asNobody("rm -f '\(m.path("picked/mine.jpg"))'")
        XCTAssertTrue(rm.stderr.contains("Permission denied"), rm.stderr)
        let mv = asNobody("mv '\(m.path("picked/mine.jpg"))' '\(m.path("picked/moved.jpg"))'")
        XCTAssertTrue(mv.stderr.contains("Permission denied"), mv.stderr)
        XCTAssertEqual(readdirNames(m.path("picked")), ["mine.jpg"])
        m.finish()
    }

    /// Files show SOURCE's owner and mode, so `default_permissions` enforces SOURCE's own
    /// permissions: under `allow_other` another user reads a 0644 photo but neither a 0600 one nor
    /// its thumbnail (EACCES); a copy made with `cp -a` has the original's mode.
    func testDefaultPermissionsEnforceSourcesOwnPermissions() throws {
        XCTAssertEqual(chmod(source.path + "/Sony/DSC01234.JPG", 0o600), 0)
        let m = try Mount(source: source.path, options: ["-o", "allow_other,default_permissions"])
        chmod(m.mountpoint, 0o755)
        func asNobody(_ path: String) -> CommandResult {
            runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/cat", path], timeout: 20,
                       environment: ["LC_ALL": "C"])
        }
        XCTAssertEqual(asNobody(m.path("non-screenshots/DSCF0001.JPG")).status, 0, "a 0644 photo")
        let denied = asNobody(m.path("non-screenshots/DSC01234.JPG"))
        XCTAssertNotEqual(denied.status, 0)
        XCTAssertTrue(denied.stderr.contains("Permission denied"), denied.stderr)
        XCTAssertTrue(asNobody(m.path("thumbnails/200x200/DSC01234.jpg")).stderr.contains("Permission denied"), "nor its thumbnail")
        XCTAssertEqual(statOf(m.path("non-screenshots/DSC01234.JPG")).map { $0.st_mode & 0o7777 }, 0o600)
        XCTAssertEqual(readAll(m.path("non-screenshots/DSC01234.JPG")).errno, 0, "its owner reads it")
        let copy = state + "/copy.jpg"
        XCTAssertEqual(runCommand("/bin/cp", ["-a", m.path("non-screenshots/DSCF0001.JPG"), copy]).status, 0)
        XCTAssertEqual(statOf(copy).map { $0.st_mode & 0o7777 }, 0o644, "a copy as writable as the original")
        m.finish()
    }

    /// Every file of the mount's own state is the user's alone: the index, the picks and the
    /// thumbnails (mode 0600 in folders of 0700), though the umask would allow more.
    func testStateFilesArePrivate() throws {
        let index = state + "/index/library.sqlite"
        let m = try Mount(source: source.path, options: ["-o", "index=" + index])
        XCTAssertEqual(symlink("../non-screenshots/DSC01234.JPG", m.path("picked/mine.jpg")), 0)
        XCTAssertEqual(readAll(m.path("thumbnails/200x200/DSC01234.jpg")).errno, 0)
        let folders = [state + "/index", m.cacheDir, m.picksDB.folderOfPath]
        defer { m.finish() }
        var files = 0
        for folder in folders {
            XCTAssertEqual(modeOf(folder), 0o700, folder)
            for sub in (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? [] {
                let path = folder + "/" + sub
                let isFolder = (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeDirectory
                XCTAssertEqual(modeOf(path), isFolder ? 0o700 : 0o600, path)
                if !isFolder { files += 1 }
            }
        }
        XCTAssertGreaterThanOrEqual(files, 3, "the index, the picks and a thumbnail")
    }

    /// A state folder owned by another user (or writable by others) is refused, said, and not
    /// used: a thumbnail planted there is never served.
    func testAStateFolderOfAnotherUserIsRefused() throws {
        let planted = state + "/planted-cache"
        try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: true)
        XCTAssertEqual(chown(planted, 65534, 65534), 0)
        let m = try Mount(source: source.path, options: ["-o", "cache_dir=" + planted])
        XCTAssertEqual(readAll(m.path("thumbnails/200x200/DSC01234.jpg")).errno, 0, "rendered in memory")
        XCTAssertEqual((FileManager.default.enumerator(atPath: planted)?.allObjects ?? []).count, 0, "nothing written there")
        m.finish(allowing: ["thumbnail cache \(planted) is not private (owned by uid 65534, not 0): not used"])
    }

    /// With no `HOME` (a root mount from fstab at boot), the state goes to the home the password
    /// database names, never to `/tmp`, and a hostile `/tmp/.cache` is left alone. Run in a
    /// mount namespace of its own with `/root` and `/tmp` on fresh tmpfs, so nothing of the
    /// machine is touched.
    func testWithoutHOMETheStateGoesToThePasswordDatabasesHome() throws {
        let script = """
        set -e
        mount -t tmpfs tmpfs /root
        mkdir /root/library && mount --bind '\(source.path)' /root/library
        cp '\(albumfsBinary())' /root/albumfs
        mount -t tmpfs tmpfs /tmp
        mkdir -p /tmp/.cache/albumfs/index && chmod -R 777 /tmp/.cache && chown -R 65534:65534 /tmp/.cache
        env -u HOME -u XDG_CACHE_HOME -u XDG_DATA_HOME /root/albumfs index /root/library > /dev/null
        stat -c '%a %U %n' /root/.cache/albumfs /root/.cache/albumfs/index /root/.cache/albumfs/index/*.sqlite
        find /tmp/.cache -type f | wc -l
        """
        let r = runCommand("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c", script], timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, r.stdout)
        XCTAssertEqual(lines.first, "700 root /root/.cache/albumfs")
        XCTAssertEqual(lines.dropFirst().first, "700 root /root/.cache/albumfs/index")
        XCTAssertTrue(lines.dropFirst(2).first?.hasPrefix("600 root /root/.cache/albumfs/index/") ?? false, r.stdout)
        XCTAssertEqual(lines.last, "0", "nothing in /tmp/.cache")
    }

    /// A photo rewritten in place, its size and mtime put back (`touch -r`): its thumbnail is made
    /// again (the ctime moved), live and after a remount with the same cache.
    func testAPhotoRewrittenInPlaceGetsANewThumbnail() throws {
        let path = source.path + "/Sony/DSC01234.JPG"
        let before = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let m = try Mount(source: source.path)
        let thumb = m.path("thumbnails/200x200/DSC01234.jpg")
        let red = try XCTUnwrap(DecodedImage(jpeg: try readFile(thumb).get())).meanColour
        let blue = try SampleJPEG.jpeg(.solid(width: 32, height: 24, 20, 20, 230), quality: 50)
        guard blue.count < before.count else { return XCTFail("the new picture (\(blue.count) bytes) must fit in the old one's \(before.count)") }
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        let fd = open(path, O_WRONLY)
        XCTAssertEqual(write(fd, blue + [UInt8](repeating: 0, count: before.count - blue.count), before.count), before.count)
        var times = [st.st_atim, st.st_mtim]
        XCTAssertEqual(futimens(fd, &times), 0)
        close(fd)
        XCTAssertTrue(eventually(10) {
            guard let bytes = try? readFile(thumb).get(), let c = DecodedImage(jpeg: bytes)?.meanColour else { return false }
            return c.2 > 150
        }, "the new picture's thumbnail (was \(red))")
        let cache = m.cacheDir
        m.finish()
        let again = try Mount(source: source.path, options: ["-o", "cache_dir=" + cache])
        assertColour(try XCTUnwrap(DecodedImage(jpeg: try readFile(again.path("thumbnails/200x200/DSC01234.jpg")).get())).meanColour, (20, 20, 230),
                     tolerance: 30, "after a remount")
        again.finish()
    }

    /// An index another process holds locked is waited for, then left as it is with a clear
    /// message: never moved aside as broken.
    func testALockedIndexIsLeftAloneNotMovedAside() throws {
        let folder = state + "/index"
        let index = folder + "/library.sqlite"
        let first = try Mount(source: source.path, options: ["-o", "index=" + index])
        first.finish()
        // (In WAL mode only a connection in exclusive locking mode keeps others out, readers too.)
        let holder = try SQLiteLockHolder(index, "PRAGMA locking_mode = EXCLUSIVE;\nSELECT count(*) FROM files;")
        let m = try Mount(source: source.path, options: ["-o", "index=" + index])
        XCTAssertNotNil(statOf(m.path("by-date/2021/2021-12/2021-12-31/DSC01234.JPG")), "mounted, without the index")
        m.finish(allowing: ["is locked by another process", "cannot be opened"])
        XCTAssertTrue(m.stderr.contains("the index \(index) is locked by another process"), m.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        XCTAssertFalse(names.contains { $0.contains("broken") }, "\(names)")
        XCTAssertTrue(holder.release())
        XCTAssertEqual(runCommand("/usr/bin/sqlite3", [index, "SELECT count(*) > 0 FROM files"], timeout: 5).stdout, "1\n", "rows kept")
    }

    /// Names are bytes: a photo whose name is Latin-1 (an old camera's, a Windows share's) is
    /// shown under its own bytes, listed, looked up and read; two pick names that differ in one
    /// byte that is not UTF-8 are two picks.
    func testNamesAreBytes() throws {
        func cPath(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
        let photo = try XCTUnwrap(FileManager.default.contents(atPath: source.path + "/Sony/DSC01234.JPG"))
        let fd = open(cPath(Array((source.path + "/Sony/").utf8) + name), O_WRONLY | O_CREAT, 0o644)
        XCTAssertEqual(photo.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, photo.count)
        close(fd)
        let m = try Mount(source: source.path)
        let listed = (readdirNames(m.path("non-screenshots")) ?? []).map { FileNameBytes.bytes($0) }
        XCTAssertTrue(listed.contains(name), "listed under its own bytes")
        let inView = Array(m.path("non-screenshots/").utf8) + name
        var st = stat()
        XCTAssertEqual(stat(cPath(inView), &st), 0, "looked up")
        XCTAssertEqual(Int(st.st_size), photo.count)
        let readFD = open(cPath(inView), O_RDONLY)
        XCTAssertGreaterThanOrEqual(readFD, 0)
        var buffer = [UInt8](repeating: 0, count: photo.count + 1)
        XCTAssertEqual(read(readFD, &buffer, buffer.count), photo.count)
        close(readFD)
        XCTAssertEqual(Data(buffer.prefix(photo.count)), photo, "read byte-identical")
        var source = [UInt8](repeating: 0, count: 4096)
        let n = getxattr(cPath(inView), "user.albumfs.source", &source, source.count)
        XCTAssertEqual(n > 0 ? Array(source.prefix(n)) : [], Array((self.source.path + "/Sony/").utf8) + name, "its source path, as bytes")
        // Two pick names one byte apart, neither valid UTF-8.
        let picked = Array(m.path("picked/").utf8)
        XCTAssertEqual(symlink("../non-screenshots/DSC01234.JPG", cPath(picked + [0xFF] + Array(".jpg".utf8))), 0)
        XCTAssertEqual(symlink("../non-screenshots/DSCF0001.JPG", cPath(picked + [0xFE] + Array(".jpg".utf8))), 0, "another name")
        let picks = (readdirNames(m.path("picked")) ?? []).map { FileNameBytes.bytes($0) }
        XCTAssertEqual(picks, [[0xFF] + Array(".jpg".utf8), [0xFE] + Array(".jpg".utf8)])
        XCTAssertEqual(lstat(cPath(picked + [0xFE] + Array(".jpg".utf8)), &st), 0)
        XCTAssertEqual(unlink(cPath(picked + [0xFF] + Array(".jpg".utf8))), 0)
        XCTAssertEqual((readdirNames(m.path("picked")) ?? []).map { FileNameBytes.bytes($0) }, [[0xFE] + Array(".jpg".utf8)])
        // "Café" composed and decomposed: two names, two picks, two inodes.
        let nfc: [UInt8] = Array("Caf".utf8) + [0xC3, 0xA9], nfd: [UInt8] = Array("Cafe".utf8) + [0xCC, 0x81]
        XCTAssertEqual(symlink("../non-screenshots/DSC01234.JPG", cPath(picked + nfc)), 0)
        XCTAssertEqual(symlink("../non-screenshots/IMG_1234.JPG", cPath(picked + nfd)), 0, "another name")
        var composed = stat(), decomposed = stat()
        XCTAssertEqual(lstat(cPath(picked + nfc), &composed), 0)
        XCTAssertEqual(lstat(cPath(picked + nfd), &decomposed), 0)
        XCTAssertNotEqual(composed.st_ino, decomposed.st_ino)
        XCTAssertEqual(Set((readdirNames(m.path("picked")) ?? []).map { FileNameBytes.bytes($0) }), [[0xFE] + Array(".jpg".utf8), nfc, nfd])
        // A long name of such bytes is measured in bytes, as the kernel measures it (204, not 804).
        let long = [UInt8](repeating: 0xE9, count: 200) + Array(".jpg".utf8)
        XCTAssertEqual(symlink("../non-screenshots/DSC_0001.JPG", cPath(picked + long)) == 0 ? 0 : errno, 0, "204 bytes: not too long")
        m.finish()
    }

    private func modeOf(_ path: String) -> mode_t {
        var st = stat()
        guard lstat(path, &st) == 0 else { return 0 }
        return st.st_mode & 0o7777
    }
}

/// Results gathered from many threads.
private final class LockedResults: @unchecked Sendable {
    // Protects `all`.
    private let lock = NSLock()
    private var results: [(bytes: Int, errno: Int32)] = []
    func add(_ r: (bytes: Int, errno: Int32)) { lock.lock(); results.append(r); lock.unlock() }
    var all: [(bytes: Int, errno: Int32)] { lock.lock(); defer { lock.unlock() }; return results }
    var count: Int { all.count }
}

private extension String {
    var folderOfPath: String { (self as NSString).deletingLastPathComponent }
}
