import AlbumCore
import AlbumSample
import Foundation
import XCTest

/// `-o desktop_thumbnails`: a listed folder's photos get thumbnails where file managers look
/// (the freedesktop specification), which GIO, as GNOME's and Xfce's file managers use it, finds
/// valid for the files in the mount.
final class DesktopThumbnailTests: XCTestCase {
    var source: SampleSource!
    var home: String!

    override func setUpWithError() throws {
        source = try SampleSource()
        home = makeTempFolder("desktop-cache")
    }

    override func tearDown() {
        source?.remove()
        if let home { try? FileManager.default.removeItem(atPath: home) }
    }

    /// What `gio info` says of a file's thumbnail, as a file manager asks it.
    func gioThumbnail(_ path: String) -> (path: String?, valid: Bool) {
        let r = runCommand("/usr/bin/gio", ["info", "-a", "thumbnail::path,thumbnail::is-valid", path], environment: ["XDG_CACHE_HOME": home, "HOME": home])
        let lines = r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let found = lines.first { $0.hasPrefix("thumbnail::path: ") }.map { String($0.dropFirst("thumbnail::path: ".count)) }
        return (found, lines.contains("thumbnail::is-valid: TRUE"))
    }

    /// The specification's name: the MD5 of the URI (Python's, beside albumfs's own).
    func md5(_ text: String) -> String {
        runCommand("/usr/bin/python3", ["-c", "import hashlib,sys; print(hashlib.md5(sys.argv[1].encode()).hexdigest(), end='')", text]).stdout
    }

    /// The URI GIO gives a path (`gio info` prints it).
    func uri(_ path: String) -> String {
        let r = runCommand("/usr/bin/gio", ["info", "-a", "standard::name", path], environment: ["XDG_CACHE_HOME": home, "HOME": home])
        return r.stdout.split(separator: "\n").first { $0.hasPrefix("uri: ") }.map { String($0.dropFirst(5)) } ?? ""
    }

    func testAListedFolderGetsThumbnailsFileManagersFindValid() throws {
        try SampleLibrary.writeFile(source.path + "/Big/wide.jpg", try SampleJPEG.jpeg(.marker(width: 1000, height: 600)), mtime: SampleLibrary.defaultMtime)
        let mount = try Mount(source: source.path, options: ["-o", "desktop_thumbnails"], launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        let filled = try filledAhead(mount)
        XCTAssertNotNil(gioThumbnail(mount.path("non-screenshots/IMG_0001.JPG")).path, "a flat view's filled ahead before it is listed")
        XCTAssertEqual(written().filter { $0.0.hasPrefix("large/") }.count, 0, "no large one before a listing")
        let names = try XCTUnwrap(readdirNames(mount.path("non-screenshots")))
        let shots = try XCTUnwrap(readdirNames(mount.path("screenshots")))
        // What the fill wrote (the flat views' normal ones among it), and the large one of each
        // listed, but the two with nothing to decode.
        let expected = filled + names.count + shots.count - ["empty.jpg", "truncated.jpg"].count
        func made() -> Int {
            ["normal", "large"].reduce(0) { $0 + ((try? FileManager.default.contentsOfDirectory(atPath: self.home + "/thumbnails/" + $1))?
                .filter { $0.hasSuffix(".png") }.count ?? 0) }
        }
        XCTAssertTrue(eventually(60) { made() >= expected }, "\(made()) of \(expected)")
        // Names as the sample has them: plain, with blanks and a non-ASCII letter.
        let odd = try XCTUnwrap(shots.first { $0.contains(" ") && $0.unicodeScalars.contains { !$0.isASCII } }, "\(shots)")
        for path in ["non-screenshots/IMG_0001.JPG", "non-screenshots/orient-6.jpg", "non-screenshots/wide.jpg", "screenshots/" + odd] {
            let name = path
            let (thumb, valid) = gioThumbnail(mount.path(path))
            let path = try XCTUnwrap(thumb, "\(name): no thumbnail found")
            XCTAssertTrue(path.hasPrefix(home + "/thumbnails/"), path)
            XCTAssertTrue(valid, "\(name): GIO finds it valid (its URI and mtime)")
            var st = stat()
            XCTAssertEqual(stat(path, &st), 0)
            XCTAssertEqual(st.st_mode & 0o777, 0o600, "\(name): the specification's mode")
            let size = runCommand("/usr/bin/identify", ["-format", "%w %h", path]).stdout.split(separator: " ").compactMap { Int($0) }
            XCTAssertLessThanOrEqual(size.max() ?? .max, path.contains("/large/") ? 256 : 128, "\(name): fits its size: \(size)")
        }
        // A big photo fits each size, its shape kept; a small one is never enlarged.
        let normal = runCommand("/usr/bin/identify", ["-format", "%w %h", home + "/thumbnails/normal/" + md5(uri(mount.path("non-screenshots/wide.jpg"))) + ".png"])
        XCTAssertEqual(normal.stdout, "128 77")
        let large = runCommand("/usr/bin/identify", ["-format", "%w %h", home + "/thumbnails/large/" + md5(uri(mount.path("non-screenshots/wide.jpg"))) + ".png"])
        XCTAssertEqual(large.stdout, "256 154")
        let small = runCommand("/usr/bin/identify", ["-format", "%w %h", try XCTUnwrap(gioThumbnail(mount.path("non-screenshots/IMG_0001.JPG")).path)])
        XCTAssertEqual(small.stdout, "96 64")
        var st = stat()
        XCTAssertEqual(stat(home + "/thumbnails/normal", &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o700)
        // Upright: the sideways-stored photo's marker at the top left of its thumbnail.
        let marker = try XCTUnwrap(gioThumbnail(mount.path("non-screenshots/orient-6.jpg")).path)
        let png = try XCTUnwrap(DecodedImage(png: marker))
        let red = png.mean(x: 0..<max(1, png.width / 5), y: 0..<max(1, png.height / 5))
        XCTAssertGreaterThan(red.0, 170, "top-left is red \(red)")
        let status = daemonStatus(mount.mountpoint)
        let bytes = written().map(\.1).reduce(0, +)
        XCTAssertEqual(made(), expected)
        XCTAssertEqual(status["desktop_thumbnails"], "\(made()) written, 0 failed, \(bytes) of 536870912 bytes, 0 listings answered at the wait bound",
                       "the empty and the cut JPEG not tried")
        XCTAssertEqual(status["original_bytes_read"], "0", "albumfs' own reading is not counted")
        let original = try readFile(mount.path("non-screenshots/wide.jpg")).get()
        XCTAssertEqual(daemonStatus(mount.mountpoint)["original_bytes_read"], String(original.count))
        mount.finish()
    }

    /// A folder's first listing by the mounting user is answered once each of its photos has its
    /// `normal` thumbnail, so that a file manager, which looks for them as soon as it has the
    /// names, finds them all and reads no original: checked file by file right after `readdir`
    /// (an outside PNG reader: chunks, CRCs, size, `Thumb::URI`, `Thumb::MTime` as GIO sees the
    /// entry) and then through GIO itself.
    func testAFoldersListingWaitsForItsNormalThumbnailsAndGioReadsNoOriginal() throws {
        let mount = try Mount(source: source.path, options: ["-o", "desktop_thumbnails"], launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        _ = try filledAhead(mount)
        let folder = "non-screenshots"
        let names = try XCTUnwrap(readdirNames(mount.path(folder)))
        // What the cache holds right after the listing: nothing waited for here.
        let cached = Set((try? FileManager.default.contentsOfDirectory(atPath: home + "/thumbnails/normal")) ?? [])
        let photos = names.filter { !["empty.jpg", "truncated.jpg"].contains($0) }
        XCTAssertGreaterThan(photos.count, 10)
        let paths = photos.map { mount.path(folder + "/" + $0) }
        let checked = runCommand("/usr/bin/python3", ["-c", Self.pngChecker, home + "/thumbnails/normal"] + paths, timeout: 60)
        let lines = checked.stdout.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1).map(String.init) }
        XCTAssertEqual(lines.count, photos.count, checked.stdout + checked.stderr)
        for (line, name) in zip(lines, photos) {
            XCTAssertEqual(line.last, "ok", "\(name): \(line)")
            XCTAssertTrue(cached.contains(line[0]), "\(name): \(line[0]) was there when the listing was answered")
        }
        let identified = runCommand("/usr/bin/identify", ["-format", "%m %w %h\n"] + lines.map { home + "/thumbnails/normal/" + $0[0] })
        XCTAssertEqual(identified.status, 0, identified.stderr)
        XCTAssertEqual(identified.stdout.split(separator: "\n").filter { $0.hasPrefix("PNG ") }.count, photos.count, identified.stdout)
        for name in ["IMG_0001.JPG", "orient-6.jpg", photos.last!] {
            let (thumb, valid) = gioThumbnail(mount.path(folder + "/" + name))
            XCTAssertNotNil(thumb, "\(name): GIO finds its thumbnail")
            XCTAssertTrue(valid, "\(name): valid for GIO")
        }
        let status = daemonStatus(mount.mountpoint)
        XCTAssertEqual(status["original_bytes_read"], "0", "no original read by a client")
        XCTAssertTrue(status["desktop_thumbnails"]?.hasSuffix(", 0 listings answered at the wait bound") == true, status["desktop_thumbnails"] ?? "")
        mount.finish()
    }

    /// An outside reader of the `normal` thumbnails (in the folder `argv[1]`) of the files
    /// `argv[2...]`, named and checked as the specification says: for each, the thumbnail's name
    /// (MD5 of the file's URI, escaped as GLib escapes it) and "ok" when the chunks' CRCs hold,
    /// it fits 128x128 and its `Thumb::URI` and `Thumb::MTime` are the file's (whole seconds);
    /// otherwise what is wrong.
    static let pngChecker = """
        import hashlib, os, struct, sys, urllib.parse, zlib
        for path in sys.argv[2:]:
            uri = "file://" + urllib.parse.quote(path, safe="/!$&'()*+,;=:@~")
            name = hashlib.md5(uri.encode()).hexdigest() + ".png"
            try:
                data = open(os.path.join(sys.argv[1], name), "rb").read()
            except OSError as e:
                print(name, "missing"); continue
            ok, at, text, size = data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", 8, {}, None
            while ok and at + 12 <= len(data):
                n, kind = struct.unpack(">I4s", data[at:at + 8])
                body = data[at + 8:at + 8 + n]
                ok = zlib.crc32(kind + body) == struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0]
                if kind == b"IHDR": size = struct.unpack(">II", body[:8])
                if kind == b"tEXt": k, v = body.split(b"\\0", 1); text[k.decode()] = v.decode()
                at += 12 + n
                if kind == b"IEND": break
            mtime = str(os.stat(path).st_mtime_ns // 10**9)
            good = ok and size and max(size) <= 128 and text.get("Thumb::URI") == uri and text.get("Thumb::MTime") == mtime
            print(name, "ok" if good else "bad crc=%s size=%s text=%s mtime=%s" % (ok, size, text, mtime))
        """

    /// After the first scan the `normal` thumbnails of `by-date/`'s day folders are written
    /// before anything is listed: newest first, until albumfs's own take half of
    /// `-o desktop_thumbnails_size`, no original read by a client, no `large` ones.
    func testTheCacheIsFilledAheadNewestFirstWithinHalfItsSize() throws {
        let folder = makeTempFolder("days")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var generator = SeededGenerator(seed: 51)
        let days = 40
        for i in 0..<days {
            let pixels = (0..<(400 * 300 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try SampleLibrary.writeFile(folder + "/noise-\(i).jpg", try SampleJPEG.jpeg(SampleImage(width: 400, height: 300, pixels: pixels)),
                                        mtime: SampleLibrary.defaultMtime + Int64(i) * 86_400)
        }
        // (by-date/ alone: the flat views' first entries come before the days, `testTheFlatViewsFirstEntriesAreFilledAheadBeforeTheDays`.)
        let m = try Mount(source: folder, options: ["-o", "desktop_thumbnails,desktop_thumbnails_size=1M,views=by-date"],
                          launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        let filled = try filledAhead(m)
        // Each photo's place in by-date/, found by lookup (no folder listed).
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy/yyyy-MM/yyyy-MM-dd"
        let has = try (0..<days).map { i -> Bool in
            let day = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(SampleLibrary.defaultMtime + Int64(i) * 86_400)))
            let path = m.path("by-date/" + day + "/noise-\(i).jpg")
            XCTAssertNotNil(statOf(path), path)
            return FileManager.default.fileExists(atPath: home + "/thumbnails/normal/" + md5(uri(path)) + ".png")
        }
        let count = has.filter { $0 }.count
        XCTAssertEqual(count, filled)
        XCTAssertGreaterThan(count, 3, "some filled ahead: \(has)")
        XCTAssertLessThan(count, days, "the bound stopped it: \(has)")
        XCTAssertEqual(has, (0..<days).map { $0 >= days - count }, "the newest days first")
        let ours = written()
        XCTAssertEqual(ours.filter { $0.0.hasPrefix("large/") }.count, 0, "the normal size only")
        let largest = try XCTUnwrap(ours.map(\.1).max())
        XCTAssertLessThan(ours.map(\.1).reduce(0, +), (1 << 19) + largest, "half the bound, and the one written when under it")
        XCTAssertGreaterThanOrEqual(ours.map(\.1).reduce(0, +), (1 << 19), "it went on until half the bound")
        let identified = runCommand("/usr/bin/identify", ["-format", "%m %w %h\n"] + ours.map { home + "/thumbnails/" + $0.0 })
        XCTAssertEqual(identified.stdout.split(separator: "\n").filter { $0 == "PNG 128 96" }.count, count, identified.stdout + identified.stderr)
        XCTAssertEqual(daemonStatus(m.mountpoint)["original_bytes_read"], "0")
        m.finish()
    }

    /// A flat view lists the whole library in one folder, more than a listing's own pass can
    /// write within its wait bound on a busy machine: its first entries (as file managers sort
    /// names) are filled ahead first, then the days, each keyed by its own path's URI.
    func testTheFlatViewsFirstEntriesAreFilledAheadBeforeTheDays() throws {
        let folder = makeTempFolder("flat")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let count = 12
        for i in 0..<count {
            try SampleLibrary.writeFile(folder + "/IMG_\(i).jpg", try SampleJPEG.jpeg(.marker(width: 96, height: 64, tint: UInt8(i * 20))),
                                        mtime: SampleLibrary.defaultMtime + Int64(i) * 86_400)
        }
        let m = try Mount(source: folder, options: ["-o", "desktop_thumbnails,views=by-date,non-screenshots"],
                          launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        XCTAssertEqual(try filledAhead(m), 2 * count, "each photo in its day and in non-screenshots/")
        func thumbnail(_ path: String) -> stat? { statOf(home + "/thumbnails/normal/" + md5(uri(m.path(path))) + ".png") }
        let flat = (0..<count).map { thumbnail("non-screenshots/IMG_\($0).jpg") }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy/yyyy-MM/yyyy-MM-dd"
        let days = (0..<count).map { i in
            thumbnail("by-date/" + formatter.string(from: Date(timeIntervalSince1970: TimeInterval(SampleLibrary.defaultMtime + Int64(i) * 86_400)))
                      + "/IMG_\(i).jpg")
        }
        XCTAssertEqual(flat.compactMap { $0 }.count, count, "non-screenshots/ filled ahead")
        XCTAssertEqual(days.compactMap { $0 }.count, count, "by-date/ filled ahead")
        // (One writer, one at a time: the order written is the order of the files' change times.)
        func written(_ s: stat) -> Double { Double(s.st_ctim.tv_sec) + Double(s.st_ctim.tv_nsec) / 1e9 }
        let lastFlat = try XCTUnwrap(flat.compactMap { $0 }.map(written).max())
        let firstDay = try XCTUnwrap(days.compactMap { $0 }.map(written).min())
        XCTAssertLessThanOrEqual(lastFlat, firstDay, "the flat view's first, then the days")
        XCTAssertEqual(daemonStatus(m.mountpoint)["original_bytes_read"], "0")
        m.finish()
    }

    /// Off by default: listing writes nothing into the user's cache.
    /// With the option, a photo's mtime is its capture time in whole seconds (tumbler compares a
    /// thumbnail's `Thumb::MTime` with it to the microsecond, and GLib holds a fraction there
    /// invalid); without it, the capture's fraction of a second shows.
    func testMtimesAreWholeSecondsWhereDesktopThumbnailsAreMade() throws {
        let fractions: (Mount) -> [Int] = { m in
            (readdirNames(m.path("non-screenshots")) ?? []).compactMap { statOf(m.path("non-screenshots/" + $0))?.st_mtim.tv_nsec }
        }
        let plain = try Mount(source: source.path, launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        let shown = fractions(plain)
        plain.finish()
        XCTAssertGreaterThan(shown.count, 20)
        XCTAssertTrue(shown.contains { $0 != 0 }, "the sample has captures with a fraction of a second")
        let desktop = try Mount(source: source.path, options: ["-o", "desktop_thumbnails"], launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        let whole = fractions(desktop)
        desktop.finish()
        XCTAssertEqual(whole.count, shown.count)
        XCTAssertEqual(Set(whole), [0], "whole seconds with the option")
    }

    func testNothingIsWrittenByDefault() throws {
        let mount = try Mount(source: source.path, launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        XCTAssertNotNil(readdirNames(mount.path("non-screenshots")))
        XCTAssertNotNil(try? readFile(mount.path("thumbnails/200x200/IMG_0001.jpg")).get())
        usleep(500_000)
        XCTAssertFalse(FileManager.default.fileExists(atPath: home + "/thumbnails"))
        XCTAssertEqual(daemonStatus(mount.mountpoint)["desktop_thumbnails"], "off")
        XCTAssertEqual(daemonStatus(mount.mountpoint)["desktop_thumbnails_ahead"], "off")
        mount.finish()
    }

    /// `gio list` (GLib's local file enumerator, which GNOME Files and Thunar list folders with)
    /// does not keep `readdir`'s order: it reads names 1,000 at a time and sorts each chunk by
    /// inode number (to spare a disk's seeks when it then asks each file's attributes). A
    /// photo's inode number is its own in every view and across mounts, so no numbering puts
    /// every view newest first at once; docs/design.md says so. This holds the reason.
    func testGioListsEachChunkInInodeOrderNotReaddirOrder() throws {
        let mount = try Mount(source: source.path)
        let folder = mount.path("non-screenshots")
        let listed = try XCTUnwrap(readdirNames(folder)).filter { $0 != "." && $0 != ".." }
        XCTAssertGreaterThan(listed.count, 10)
        let r = runCommand("/usr/bin/gio", ["list", folder], environment: ["XDG_CACHE_HOME": home, "HOME": home])
        XCTAssertEqual(r.status, 0, r.stderr)
        let gio = r.stdout.split(separator: "\n").map(String.init)
        let byInode = listed.sorted { try! XCTUnwrap(statOf(folder + "/" + $0)).st_ino < (try! XCTUnwrap(statOf(folder + "/" + $1)).st_ino) }
        XCTAssertEqual(gio, byInode)
        mount.finish()
    }

    /// How many thumbnails the fill ahead after the first scan wrote, once it is done.
    func filledAhead(_ mount: Mount) throws -> Int {
        XCTAssertTrue(eventually(120) { daemonStatus(mount.mountpoint)["desktop_thumbnails_ahead"]?.hasSuffix(" written, done") == true },
                      daemonStatus(mount.mountpoint)["desktop_thumbnails_ahead"] ?? "")
        let state = try XCTUnwrap(daemonStatus(mount.mountpoint)["desktop_thumbnails_ahead"])
        return try XCTUnwrap(Int(state.prefix { $0.isNumber }), state)
    }

    /// The file manager thumbnails albumfs wrote, by folder: (name, bytes).
    func written() -> [(String, Int)] {
        ["normal", "large"].flatMap { folder -> [(String, Int)] in
            let dir = home + "/thumbnails/" + folder
            return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".png") }.compactMap { name in
                statOf(dir + "/" + name).map { (folder + "/" + name, Int($0.st_size)) }
            }
        }
    }

    /// Under `allow_other`, another user's listings write nothing into the mounting user's cache;
    /// the mounting user's do. What albumfs writes there stays within
    /// `-o desktop_thumbnails_size`, the oldest removed first, and a thumbnail another program
    /// put there is never removed.
    func testOnlyTheMountingUsersListingsWriteThemAndTheyStayWithinTheirSize() throws {
        let folder = makeTempFolder("noisy")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertEqual(chmod(folder, 0o755), 0)
        var generator = SystemRandomNumberGenerator()
        for i in 0..<30 {
            let pixels = (0..<(600 * 400 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try SampleLibrary.writeFile(folder + "/noise-\(i).jpg", try SampleJPEG.jpeg(SampleImage(width: 600, height: 400, pixels: pixels)),
                                        mtime: SampleLibrary.defaultMtime + Int64(i))
        }
        try FileManager.default.createDirectory(atPath: home + "/thumbnails/normal", withIntermediateDirectories: true)
        let others = home + "/thumbnails/normal/0123456789abcdef0123456789abcdef.png"
        XCTAssertTrue(FileManager.default.createFile(atPath: others, contents: Data(PNGOfAnotherProgram.bytes)))
        let m = try Mount(source: folder, options: ["-o", "allow_other,desktop_thumbnails,desktop_thumbnails_size=1M"],
                          launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        let filled = try filledAhead(m)
        let before = written().map(\.0)
        let other = runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/ls", m.path("non-screenshots")], timeout: 20)
        XCTAssertEqual(other.stdout.split(separator: "\n").count, 30, other.stderr)
        usleep(2_000_000)
        XCTAssertEqual(written().map(\.0), before, "another user's listing wrote nothing")
        XCTAssertEqual(try XCTUnwrap(readdirNames(m.path("non-screenshots"))).count, 30)
        XCTAssertTrue(eventually(60) { daemonStatus(m.mountpoint)["desktop_thumbnails"]?.hasPrefix("\(filled + 60) written") == true },
                      daemonStatus(m.mountpoint)["desktop_thumbnails"] ?? "")
        let ours = written().filter { !$0.0.hasSuffix("0123456789abcdef0123456789abcdef.png") }
        let bytes = ours.reduce(0) { $0 + $1.1 }
        XCTAssertLessThanOrEqual(bytes, 1 << 20, "within the bound")
        XCTAssertLessThan(ours.count, filled + 60, "the oldest were removed")
        XCTAssertGreaterThan(ours.count, 0)
        XCTAssertNotNil(statOf(others), "another program's thumbnail is kept")
        let status = try XCTUnwrap(daemonStatus(m.mountpoint)["desktop_thumbnails"])
        XCTAssertTrue(status.contains(" of 1048576 bytes, "), status)
        m.finish()
    }

    /// The thumbnail folder replaced by a link (to a folder the daemon may write) before the
    /// mount: not followed; nothing is written there, and the log says why once.
    func testALinkInPlaceOfTheThumbnailFolderIsNotFollowed() throws {
        let elsewhere = makeTempFolder("elsewhere")
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        try FileManager.default.createDirectory(atPath: home + "/thumbnails", withIntermediateDirectories: true)
        XCTAssertEqual(chmod(home + "/thumbnails", 0o700), 0)
        XCTAssertEqual(symlink(elsewhere, home + "/thumbnails/normal"), 0)
        let m = try Mount(source: source.path, options: ["-o", "desktop_thumbnails"], launcher: ["/usr/bin/env", "XDG_CACHE_HOME=" + home])
        XCTAssertNotNil(readdirNames(m.path("non-screenshots")))
        XCTAssertTrue(eventually(20) { m.stderr.contains("desktop thumbnails are not written") }, m.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [])
        m.finish(allowing: ["desktop thumbnails are not written"])
    }
}

/// A 1x1 PNG as another program would leave it in the thumbnail folder.
enum PNGOfAnotherProgram {
    static let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0,
                                 0x90, 0x77, 0x53, 0xDE, 0, 0, 0, 12, 0x49, 0x44, 0x41, 0x54, 0x08, 0xD7, 0x63, 0xF8, 0xCF, 0xC0, 0, 0, 0x03, 0x01,
                                 0x01, 0x00, 0x18, 0xDD, 0x8D, 0xB0, 0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
}
