import AlbumCore
import AlbumSample
import CSysXattr
import Foundation
import Glibc
import AlbumSystem
import XCTest

/// thumbnails/WxH/: exact size from the first stat, lazy, cached, orientation, colour, errors.
final class ThumbnailTests: XCTestCase {
    static let size = 30_000  // 200 x 200 x 3/4: the documented fixed size

    func testEveryThumbnailIsAnExact200x200JPEGOrEIO() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        let names = try XCTUnwrap(readdirNames(mount.path("thumbnails/200x200")))
        // Every photo and video but those with nothing to render (empty, no movie box).
        XCTAssertEqual(names.count, source.items.filter { $0.expectedDay != nil && !$0.expectedWithoutThumbnail }.count)
        XCTAssertFalse(names.contains("empty.jpg") || names.contains("cut.jpg") || names.contains("truncated.jpg"), "\(names)")
        let undecodable: Set<String> = []
        for name in names {
            let path = mount.path("thumbnails/200x200/" + name)
            XCTAssertEqual(statOf(path)?.st_size, off_t(Self.size), name)
            XCTAssertTrue(name.hasSuffix(".jpg"), name)
            switch readFile(path) {
            case .success(let bytes):
                XCTAssertFalse(undecodable.contains(name), "\(name) should not decode")
                XCTAssertEqual(bytes.count, Self.size, name)
                let image = try XCTUnwrap(DecodedImage(jpeg: bytes), "\(name) decodes")
                XCTAssertEqual(image.width, 200, name)
                XCTAssertEqual(image.height, 200, name)
            case .failure(let e):
                XCTAssertTrue(undecodable.contains(name), "\(name): errno \(e.code)")
                XCTAssertEqual(e.code, EIO, name)
            }
        }
        // Readdir order and mtimes as in the other views (the undecodable one has left the listing).
        let times = names.filter { !undecodable.contains($0) }.map { statOf(mount.path("thumbnails/200x200/" + $0))!.st_mtim.tv_sec }
        XCTAssertEqual(times, times.sorted(by: >))
        mount.finish()
    }

    /// Two daemons sharing one cache folder (two machines mounting one NAS library, each with its
    /// own index): both asked for every thumbnail at once, from several threads, each serves the
    /// same whole bytes, the cache holds one file per thumbnail and no temporary file, and a
    /// third mount renders nothing.
    func testTwoMountsShareOneThumbnailCache() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let cache = makeTempFolder("shared-cache"), indexes = makeTempFolder("indexes")
        defer { try? FileManager.default.removeItem(atPath: cache); try? FileManager.default.removeItem(atPath: indexes) }
        func mount(_ name: String) throws -> Mount {
            try Mount(source: source.path, options: ["-o", "cache_dir=" + cache, "-o", "index=\(indexes)/\(name).sqlite"])
        }
        let a = try mount("a"), b = try mount("b")
        let names = try XCTUnwrap(readdirNames(a.path("thumbnails/200x200")))
        XCTAssertGreaterThan(names.count, 40)
        let results = Locked([String: [UInt8]]())
        let folders = [a.path("thumbnails/200x200/"), b.path("thumbnails/200x200/")]
        DispatchQueue.concurrentPerform(iterations: 8) { reader in
            for name in names.shuffled() {
                let bytes = (try? readFile(folders[reader % 2] + name).get()) ?? []
                results.withLock { seen in
                    if let other = seen[name] { XCTAssertEqual(other, bytes, "\(name): the same bytes through both mounts") }
                    seen[name] = bytes
                }
            }
        }
        let read = results.withLock { $0 }
        for (name, bytes) in read { XCTAssertEqual(bytes.count, Self.size, name) }
        let files = (FileManager.default.enumerator(atPath: cache)?.allObjects as? [String] ?? []).map { $0.nameAfterLastSlash }
        XCTAssertEqual(files.filter { $0.hasSuffix(".jpg") }.count, names.count, "one file per thumbnail")
        XCTAssertEqual(files.filter { $0.hasPrefix(".tmp") }, [], "no temporary file left")
        a.finish()
        b.finish()
        let c = try mount("c")
        for name in names { XCTAssertEqual(try readFile(c.path("thumbnails/200x200/" + name)).get(), read[name], name) }
        XCTAssertEqual(daemonStatus(c.mountpoint)["thumbnails_rendered"], "0", "every one taken from the shared cache")
        c.finish()
    }

    func testOrientationMarkerLandsTopLeftForAllEight() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        for o in 1...8 {
            try assertMarkerUpright(mount.path("thumbnails/200x200/orient-\(o).jpg"), "orientation \(o)")
        }
        mount.finish()
    }

    /// The sample's iPhone HEIC (pixels stored sideways, a rotation box, EXIF Orientation 6): a
    /// photo by default, on its EXIF day, not turned by its EXIF Orientation, its thumbnail
    /// upright (turned once, by its own box); with `-o heif=off` not a photo, the first scan's line
    /// and the status saying so, and turning it back on reads nothing again.
    func testAHEICIsAPhotoByDefaultShownUprightTurnedOnce() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        XCTAssertEqual(daemonStatus(mount.mountpoint)["images_not_shown"], "0")
        XCTAssertFalse(mount.stderr.contains("HEIC/HEIF image"), mount.stderr)
        XCTAssertFalse(mount.stderr.contains("libheif"), "libheif 1.19 is installed: no warning")
        XCTAssertEqual(readdirNames(mount.path(SampleLibrary.heicDay)), ["IMG_1400.HEIC"])
        let photo = mount.path("non-screenshots/IMG_1400.HEIC")
        XCTAssertEqual(try readFile(photo).get(), source.items.first { $0.path == SampleLibrary.heicPath }?.bytes)
        XCTAssertEqual(statOf(photo)?.st_mtim.tv_sec, 1_716_129_900)  // 2024-05-19 07:45:00 -07:00
        XCTAssertEqual(xattr(photo, "user.albumfs.format"), "heif")
        XCTAssertEqual(xattr(photo, "user.albumfs.date_source"), "exif:DateTimeOriginal")
        XCTAssertEqual(xattr(photo, "user.albumfs.screenshot"), "no (camera exif)")
        XCTAssertEqual(xattr(photo, "user.albumfs.orientation"), "1")
        try assertMarkerUpright(mount.path("thumbnails/200x200/IMG_1400.jpg"), "IMG_1400.HEIC")
        mount.finish()

        let off = try Mount(source: source.path, options: ["-o", "heif=off"])
        XCTAssertEqual(daemonStatus(off.mountpoint)["header_reads"], "0", "the index had read it: nothing read again")
        for view in ["non-screenshots", "thumbnails/200x200"] {
            XCTAssertFalse(try XCTUnwrap(readdirNames(off.path(view))).contains { $0.hasPrefix("IMG_1400") }, view)
        }
        XCTAssertNil(statOf(off.path(SampleLibrary.heicDay)), "no photo of that day")
        // (The sample's HEICs: this one and the HEIC Live Photo's still.)
        let heics = source.items.filter { $0.expectedDay != nil && $0.path.hasSuffix(".HEIC") }.count
        XCTAssertEqual(heics, 2, "the sample's HEICs")
        XCTAssertEqual(daemonStatus(off.mountpoint)["photos"], String(source.items.filter { $0.expectedDay != nil }.count - heics))
        XCTAssertEqual(daemonStatus(off.mountpoint)["images_not_shown"], String(heics))
        XCTAssertTrue(off.stderr.contains("; \(heics) HEIC/HEIF images not shown (-o heif=on shows them)"), off.stderr)
        off.finish()
    }

    /// A HEIC whose image data is lost (its bytes zeroed, as a failing disk gives them back) is
    /// still a photo: listed, dated, read byte for byte; its thumbnail answers EIO once, said in
    /// `.albumfs/errors`, and leaves the listing; the other HEIC renders.
    func testACorruptHEICIsListedAndReadAndOnlyItsThumbnailFails() throws {
        let source = try SampleSource()
        defer { source.remove() }
        var heic = try SampleHEIF.heif(.marker(width: 320, height: 240))
        // The media data box's body but its first NAL unit's length: the image's bytes, zeroed.
        var at = 0
        while at + 8 <= heic.count, !heic[(at + 4)..<(at + 8)].elementsEqual("mdat".utf8) {
            at += Int(heic[at]) << 24 | Int(heic[at + 1]) << 16 | Int(heic[at + 2]) << 8 | Int(heic[at + 3])
        }
        XCTAssertLessThan(at + 12, heic.count, "a media data box")
        for i in (at + 12)..<heic.count { heic[i] = 0 }
        try SampleLibrary.writeFile(source.path + "/Damaged/IMG_9000.HEIC", heic, mtime: SampleLibrary.defaultMtime)
        let mount = try Mount(source: source.path)
        let photo = mount.path("non-screenshots/IMG_9000.HEIC")
        XCTAssertEqual(try readFile(photo).get(), heic)
        XCTAssertEqual(xattr(photo, "user.albumfs.format"), "heif")
        XCTAssertEqual(xattr(photo, "user.albumfs.date_source"), "mtime")
        XCTAssertEqual(readFile(mount.path("thumbnails/200x200/IMG_9000.jpg")).failure?.code, EIO)
        let errors = (try? String(contentsOfFile: mount.path(".albumfs/errors"), encoding: .utf8)) ?? ""
        XCTAssertTrue(errors.hasPrefix("Damaged/IMG_9000.HEIC: cannot make a thumbnail"), errors)
        XCTAssertTrue(eventually { !(readdirNames(mount.path("thumbnails/200x200"))?.contains("IMG_9000.jpg") ?? true) })
        try assertMarkerUpright(mount.path("thumbnails/200x200/IMG_1400.jpg"), "IMG_1400.HEIC")
        mount.finish(allowing: ["cannot make a thumbnail of Damaged/IMG_9000.HEIC"])
    }

    /// libheif is loaded on first use (Sources/CHeif). Where it cannot be (here a broken
    /// `libheif.so.1`, found first through `LD_LIBRARY_PATH`), the HEIC is still listed, dated
    /// and read; its thumbnail alone fails (EIO), `.albumfs/errors` says why, and the daemon and
    /// every other thumbnail carry on.
    func testAHEICWhoseLibraryCannotBeLoadedLosesItsThumbnailOnly() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let libraries = makeTempFolder("libs")
        defer { try? FileManager.default.removeItem(atPath: libraries) }
        XCTAssertTrue(FileManager.default.createFile(atPath: libraries + "/libheif.so.1", contents: Data("not a library".utf8)))
        let mount = try Mount(source: source.path, launcher: ["/usr/bin/env", "LD_LIBRARY_PATH=" + libraries])
        XCTAssertEqual(readdirNames(mount.path(SampleLibrary.heicDay)), ["IMG_1400.HEIC"])
        let photo = mount.path("non-screenshots/IMG_1400.HEIC")
        XCTAssertEqual(try readFile(photo).get(), source.items.first { $0.path == SampleLibrary.heicPath }?.bytes)
        XCTAssertEqual(readFile(mount.path("thumbnails/200x200/IMG_1400.jpg")).failure?.code, EIO)
        let jpeg = try XCTUnwrap(readdirNames(mount.path("thumbnails/200x200"))?.first { $0 != "IMG_1400.jpg" })
        XCTAssertEqual(try readFile(mount.path("thumbnails/200x200/" + jpeg)).get().count, 30_000)
        let errors = (try? String(contentsOfFile: mount.path(".albumfs/errors"), encoding: .utf8)) ?? ""
        let line = try XCTUnwrap(errors.split(separator: "\n").first { $0.contains("IMG_1400.HEIC") }, errors)
        XCTAssertTrue(line.contains("cannot make a thumbnail: HEIF: ") && line.contains("libheif.so.1"), String(line))
        XCTAssertTrue(mount.stderr.contains("albumfs: warning: libheif cannot be loaded ("), "said at mount time: " + mount.stderr)
        mount.finish(allowing: ["cannot make a thumbnail of " + SampleLibrary.heicPath, "libheif cannot be loaded"])
    }

    func testEveryJPEGAndPNGKindHasTheRightColour() throws {
        let folder = makeTempFolder("kinds")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let colour = SampleImage.solid(width: 120, height: 80, 200, 100, 50)
        func write(_ name: String, _ bytes: [UInt8]) { XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes))) }
        for kind in SampleJPEG.JPEGKind.allCases { write("jpeg-\(kind.rawValue).jpg", try SampleJPEG.jpeg(colour, quality: 95, kind: kind)) }
        // Without the closing EOI marker (some phones write them so, an interrupted copy loses it).
        write("jpeg-no-end-marker.jpg", Array(try SampleJPEG.jpeg(colour, quality: 95).dropLast(2)))
        write("jpeg-progressive-no-end-marker.jpg", Array(try SampleJPEG.jpeg(colour, quality: 95, kind: .progressive).dropLast(2)))
        write("png-rgb.png", try SamplePNG.png(colour))
        write("png-wrong-crc.png", SamplePNG.withWrongCRC(of: "IDAT", in: try SamplePNG.png(colour)))
        write("png-gray.png", try SamplePNG.png(colour, kind: .grayscale))
        write("png-16bit.png", try SamplePNG.png(colour, kind: .rgb16))
        write("png-16bit-untagged.png", try SamplePNG.png(colour, kind: .rgb16Untagged))
        write("png-palette.png", try SamplePNG.png(colour, kind: .palette))
        write("png-transparent.png", try SamplePNG.png(colour, kind: .rgba(alpha: 0)))
        write("png-half-red.png", try SamplePNG.png(.solid(width: 60, height: 60, 255, 0, 0), kind: .rgba(alpha: 128)))
        // Tagged with a colour profile (an iPhone's Display P3, a macOS screenshot's display).
        let p3 = SampleICC.iccProfile(description: "Display P3 (albumfs test)")
        write("jpeg-p3.jpg", SampleJPEG.insertingICCProfile(p3, into: try SampleJPEG.jpeg(colour, quality: 95)))
        write("png-p3.png", try SamplePNG.png(colour, kind: .tagged(iccProfile: p3)))
        // A camera set to Adobe RGB: no profile, EXIF says so (written here by exiftool itself).
        write("jpeg-adobergb.jpg", try SampleJPEG.jpeg(colour, quality: 95))
        let tagged = shell("exiftool -q -overwrite_original -ColorSpace=Uncalibrated -InteropIndex=R03 '\(folder)/jpeg-adobergb.jpg'")
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        // Restart markers and Adam7 interlacing come from the reference tools.
        let ppm = Array("P6 120 80 255\n".utf8) + colour.pixels
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/src.ppm", contents: Data(ppm)))
        XCTAssertEqual(shell("cjpeg -restart 1 -quality 95 '\(folder)/src.ppm' > '\(folder)/jpeg-restart.jpg'").status, 0)
        XCTAssertEqual(shell("/usr/bin/convert '\(folder)/png-rgb.png' -interlace PNG '\(folder)/png-interlaced.png'").status, 0)
        unlink(folder + "/src.ppm")
        XCTAssertTrue(shell("python3 -c \"import sys;d=open('\(folder)/png-interlaced.png','rb').read();sys.exit(0 if d[28]==1 else 1)\"").status == 0,
                      "ImageMagick wrote an interlaced PNG")
        let gray = (200.0 * 0.299 + 100 * 0.587 + 50 * 0.114).rounded()
        let expected: [String: (Double, Double, Double)] = [
            "jpeg-baseline.jpg": (200, 100, 50), "jpeg-progressive.jpg": (200, 100, 50), "jpeg-grayscale.jpg": (gray, gray, gray),
            "jpeg-cmyk.jpg": (200, 100, 50), "jpeg-restart.jpg": (200, 100, 50),
            "png-rgb.jpg": (200, 100, 50), "png-gray.jpg": (gray, gray, gray), "png-16bit.jpg": (200, 100, 50),
            "png-16bit-untagged.jpg": (200, 100, 50),
            "png-palette.jpg": (200, 100, 50), "png-transparent.jpg": (255, 255, 255), "png-half-red.jpg": (255, 127, 127),
            "png-interlaced.jpg": (200, 100, 50), "jpeg-p3.jpg": (200, 100, 50), "png-p3.jpg": (200, 100, 50),
            "jpeg-adobergb.jpg": (200, 100, 50),
            "jpeg-no-end-marker.jpg": (200, 100, 50), "jpeg-progressive-no-end-marker.jpg": (200, 100, 50),
            "png-wrong-crc.jpg": (200, 100, 50),
        ]
        let mount = try Mount(source: folder)
        XCTAssertEqual(Set(readdirNames(mount.path("thumbnails/200x200")) ?? []), Set(expected.keys))
        for (name, colour) in expected {
            let bytes = try readFile(mount.path("thumbnails/200x200/" + name)).get()
            let image = try XCTUnwrap(DecodedImage(jpeg: bytes), name)
            XCTAssertEqual(image.width, 200, name)
            assertColour(image.meanColour, colour, tolerance: 8, name)
        }
        // The tagged ones carry the profile (as exiftool reads it), the others none.
        let described = shell("cd '\(mount.path("thumbnails/200x200"))' && exiftool -q -p '$FileName $ProfileDescription' -m *.jpg")
        XCTAssertEqual(described.status, 0, described.stderr)
        let lines = described.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(lines.count, expected.count, described.stdout)
        XCTAssertEqual(Set(lines.filter { $0.contains(" ") }),
                       ["jpeg-p3.jpg Display P3 (albumfs test)", "png-p3.jpg Display P3 (albumfs test)",
                        "jpeg-adobergb.jpg Adobe RGB (1998)"], described.stdout)
        mount.finish()
    }

    func testSizeFromStatIsWhatEveryToolCopies() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        let out = makeTempFolder("copies")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let dir = mount.path("thumbnails/200x200")
        // tar and rsync of thumbnails nobody has opened yet.
        XCTAssertEqual(shell("mkdir -p '\(out)/tar' && tar -C '\(dir)' -cf - orient-1.jpg orient-2.jpg | tar -C '\(out)/tar' -xf -").status, 0)
        XCTAssertEqual(shell("rsync -a '\(dir)/orient-3.jpg' '\(dir)/orient-4.jpg' '\(out)/'").status, 0)
        XCTAssertEqual(shell("python3 -c \"import shutil; shutil.copyfile('\(dir)/orient-5.jpg', '\(out)/sendfile.jpg')\"").status, 0)
        XCTAssertEqual(shell("python3 -c \"import mmap; f=open('\(dir)/orient-6.jpg','rb'); m=mmap.mmap(f.fileno(),0,prot=mmap.PROT_READ); open('\(out)/mmap.jpg','wb').write(m[:])\"").status, 0)
        XCTAssertEqual(shell("cat '\(dir)/orient-7.jpg' > '\(out)/cat.jpg' && cp '\(dir)/orient-8.jpg' '\(out)/cp.jpg'").status, 0)
        for copy in ["tar/orient-1.jpg", "tar/orient-2.jpg", "orient-3.jpg", "orient-4.jpg", "sendfile.jpg", "mmap.jpg", "cat.jpg", "cp.jpg"] {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: out + "/" + copy), copy)
            XCTAssertEqual(bytes.count, Self.size, copy)
            let image = DecodedImage(jpeg: [UInt8](bytes))
            XCTAssertEqual(image?.width, 200, copy)
        }
        mount.finish()
    }

    /// A reader going through `thumbnails/200x200/` in order (by name, as `ls`, a shell's `*` and
    /// file managers sort, or as listed) finds the next thumbnails made ahead of it, each made
    /// once, the bytes those a mount making none ahead serves; a reader out of order, or a mount
    /// with `-o thumbnail_ahead=0`, has none made ahead. One that fails ahead of the reader
    /// answers the reader EIO, as without, and leaves the listing only then.
    func testThumbnailsAreMadeAheadOfAReaderReadingInOrder() throws {
        let folder = makeTempFolder("ahead")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for i in 0..<12 {
            let path = "\(folder)/IMG_\(1000 + i).jpg"
            // (IMG_1005 over the pixel limit the mounts are given: its thumbnail fails.)
            let width = i == 5 ? 3000 : 1600 + 8 * i
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(try SampleJPEG.jpeg(.marker(width: width, height: 1200)))))
            // (Listed newest first: the listing is the names' order backwards.)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 + 60 * Double(i))], ofItemAtPath: path)
        }
        // (duplicates/ hidden: its similar photos' pass would hash these twelve beside the reader,
        // a core's worth of work that is not this test's.)
        let limit = ["-o", "thumbnail_max_pixels=3000000", "-o", "views=by-date,non-screenshots,thumbnails"]
        let ahead = try Mount(source: folder, options: limit)
        let listed = try XCTUnwrap(readdirNames(ahead.path("thumbnails/200x200")))
        let names = listed.sorted()
        XCTAssertEqual(names.count, 12)
        var made: [String: [UInt8]] = [:]
        for name in names where name != "IMG_1005.jpg" { made[name] = try readFile(ahead.path("thumbnails/200x200/" + name)).get() }
        XCTAssertEqual(readFile(ahead.path("thumbnails/200x200/IMG_1005.jpg")).failure?.code, EIO, "failed ahead: EIO at the read")
        // (The kernel's cached listing is told off the request's thread: at once, but after the reply.)
        XCTAssertTrue(eventually(5) { readdirNames(ahead.path("thumbnails/200x200"))?.count == 11 }, "then unlisted")
        var status = daemonStatus(ahead.mountpoint)
        XCTAssertEqual(status["thumbnails_rendered"], "12", "each made once")
        XCTAssertGreaterThanOrEqual(Int(status["thumbnails_rendered_ahead"] ?? "") ?? 0, 6, "made ahead of the reader: \(status)")
        ahead.finish(allowing: ["pixel limit"])

        // (An index of its own: the first mount's index keeps IMG_1005's failure, which would
        // leave it unlisted from the start.)
        let fresh = makeTempFolder("ahead-index")
        defer { try? FileManager.default.removeItem(atPath: fresh) }
        let none = try Mount(source: folder, options: limit + ["-o", "thumbnail_ahead=0", "-o", "index=\(fresh)/index.sqlite"])
        for name in listed where name != "IMG_1005.jpg" { XCTAssertEqual(try readFile(none.path("thumbnails/200x200/" + name)).get(), made[name], name) }
        XCTAssertEqual(readFile(none.path("thumbnails/200x200/IMG_1005.jpg")).failure?.code, EIO)
        status = daemonStatus(none.mountpoint)
        XCTAssertEqual(status["thumbnails_rendered"], "12")
        XCTAssertEqual(status["thumbnails_rendered_ahead"], "0", "none ahead when told none")
        none.finish(allowing: ["pixel limit"])

        // No two read one after the other are neighbours, by name or as listed.
        let order = [0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11].map { names[$0] }
        for (a, b) in zip(order, order.dropFirst()) {
            XCTAssertGreaterThan(abs(names.firstIndex(of: a)! - names.firstIndex(of: b)!), 1)
            XCTAssertGreaterThan(abs(listed.firstIndex(of: a)! - listed.firstIndex(of: b)!), 1)
        }
        let scattered = try Mount(source: folder)
        for name in order where name != "IMG_1005.jpg" { XCTAssertEqual(try readFile(scattered.path("thumbnails/200x200/" + name)).get(), made[name], name) }
        XCTAssertEqual(daemonStatus(scattered.mountpoint)["thumbnails_rendered_ahead"], "0", "nothing ahead of a reader out of order")
        scattered.finish()
    }

    func testListingAndStatRenderNothing() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        XCTAssertEqual(shell("ls -l '\(mount.path("thumbnails/200x200"))' && find '\(mount.mountpoint)/thumbnails' -ls && stat '\(mount.path("thumbnails/200x200"))'/*").status, 0)
        XCTAssertEqual(daemonStatus(mount.mountpoint)["thumbnails_rendered"], "0")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: mount.cacheDir), [])
        mount.finish()
    }

    func testCacheIsUsedAfterRemountAndAChangedSourceGetsANewThumbnail() throws {
        let folder = makeTempFolder("change")
        let cache = makeTempFolder("sharedcache")
        defer { try? FileManager.default.removeItem(atPath: folder); try? FileManager.default.removeItem(atPath: cache) }
        let photo = folder + "/p.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: photo, contents: Data(try SampleJPEG.jpeg(.solid(width: 64, height: 64, 220, 20, 20)))))
        var first = try Mount(source: folder, options: ["-o", "cache_dir=" + cache])
        let red = try readFile(first.path("thumbnails/200x200/p.jpg")).get()
        XCTAssertEqual(daemonStatus(first.mountpoint)["thumbnails_rendered"], "1")
        first.finish()

        let second = try Mount(source: folder, options: ["-o", "cache_dir=" + cache])
        XCTAssertEqual(try readFile(second.path("thumbnails/200x200/p.jpg")).get(), red)
        XCTAssertEqual(daemonStatus(second.mountpoint)["thumbnails_rendered"], "0", "served from the cache")
        second.finish()

        XCTAssertTrue(FileManager.default.createFile(atPath: photo, contents: Data(try SampleJPEG.jpeg(.solid(width: 64, height: 64, 20, 20, 220)))))
        first = try Mount(source: folder, options: ["-o", "cache_dir=" + cache])
        let blue = try XCTUnwrap(DecodedImage(jpeg: try readFile(first.path("thumbnails/200x200/p.jpg")).get()))
        assertColour(blue.meanColour, (20, 20, 220), "the changed source")
        XCTAssertEqual(daemonStatus(first.mountpoint)["thumbnails_rendered"], "1")
        first.finish()
    }

    func testSixteenParallelReadersCauseOneRender() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        let path = mount.path("thumbnails/200x200/IMG_1234.jpg")
        var results = [[UInt8]?](repeating: nil, count: 16)
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer  // each thread writes its own slot
            DispatchQueue.concurrentPerform(iterations: 16) { i in
                out[i] = try? readFile(path).get()
            }
        }
        XCTAssertTrue(results.allSatisfy { $0 != nil && $0 == results[0] })
        XCTAssertEqual(daemonStatus(mount.mountpoint)["thumbnails_rendered"], "1")
        mount.finish()
    }

    /// A thumbnail that fails from its photo's content answers EIO once, is logged once and
    /// named in `.albumfs/errors`, and leaves the listing (lookup, readdir, stat) so that a file
    /// manager or `tar` meets it no more; the original stays in every view. Fixed, it is back.
    func testFailureIsRememberedLoggedOnceAndOtherViewsUnaffected() throws {
        let source = try SampleSource()
        defer { source.remove() }
        try SampleLibrary.writeFile(source.path + "/" + SampleLibrary.undecodableJPEGPath, SampleLibrary.undecodableJPEG(),
                                    mtime: SampleLibrary.defaultMtime)
        let mount = try Mount(source: source.path)
        let thumb = mount.path("thumbnails/200x200/undecodable.jpg")
        XCTAssertEqual(readFile(thumb).failure?.code, EIO)
        XCTAssertTrue(eventually { !(readdirNames(mount.path("thumbnails/200x200"))?.contains("undecodable.jpg") ?? true) })
        XCTAssertNil(statOf(thumb), "the kernel was told: no entry")
        XCTAssertEqual(readFile(thumb).failure?.code, ENOENT)
        let status = daemonStatus(mount.mountpoint)
        XCTAssertEqual(status["thumbnails_rendered"], "1", "no re-decode")
        XCTAssertEqual(status["thumbnail_failures"], "1")
        XCTAssertNotNil(try? readFile(mount.path("non-screenshots/undecodable.jpg")).get(), "the original still reads")
        let tar = runCommand("/bin/tar", ["-C", mount.path("thumbnails"), "-cf", "/dev/stdout", "200x200"])
        XCTAssertEqual(tar.status, 0, "every thumbnail listed reads: \(tar.stderr)")
        // Fixed (rewritten whole): listed and rendered again.
        let camera = try XCTUnwrap(source.items.first { $0.path == "DCIM/100CANON/IMG_0001.JPG" }).bytes
        XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/" + SampleLibrary.undecodableJPEGPath, contents: Data(camera)))
        XCTAssertTrue(eventually(10) { (try? readFile(thumb).get())?.count == 30_000 }, "rendered once fixed")
        mount.finish(allowing: ["cannot make a thumbnail of Edge/undecodable.jpg"])
        XCTAssertEqual(mount.stderr.components(separatedBy: "cannot make a thumbnail of Edge/undecodable.jpg").count, 2, mount.stderr)
    }

    /// A failure met at a read is kept in the index with the photo's identity: after a remount
    /// that thumbnail is not listed from the start, nothing is decoded again, and a first `tar`
    /// of `thumbnails/` exits 0; `.albumfs/errors` still names it. A mount with other render
    /// limits tries it again.
    func testAFailureMetAtAReadIsNotListedAfterARemount() throws {
        let folder = makeTempFolder("kept-failure")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try SampleLibrary.writeFile(folder + "/undecodable.jpg", SampleLibrary.undecodableJPEG(), mtime: SampleLibrary.defaultMtime)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/good.jpg", contents: Data(try SampleJPEG.jpeg(.marker(width: 96, height: 64)))))
        var mount = try Mount(source: folder)
        XCTAssertEqual(readdirNames(mount.path("thumbnails/200x200"))?.sorted(), ["good.jpg", "undecodable.jpg"], "listed until a read fails")
        XCTAssertEqual(readFile(mount.path("thumbnails/200x200/undecodable.jpg")).failure?.code, EIO)
        mount.finish(allowing: ["cannot make a thumbnail of undecodable.jpg"])

        mount = try Mount(source: folder)
        XCTAssertEqual(readdirNames(mount.path("thumbnails/200x200")), ["good.jpg"], "not listed from the start")
        XCTAssertNil(statOf(mount.path("thumbnails/200x200/undecodable.jpg")))
        let tar = runCommand("/bin/bash", ["-o", "pipefail", "-c", "tar -C \(mount.path("thumbnails")) -cf - 200x200 | wc -c"])
        XCTAssertEqual(tar.status, 0, tar.stderr)
        XCTAssertGreaterThan(Int(tar.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 30_000, "good.jpg's thumbnail is in it")
        XCTAssertTrue(try String(contentsOfFile: mount.path(".albumfs/errors"), encoding: .utf8).contains("undecodable.jpg: cannot make a thumbnail"))
        let status = daemonStatus(mount.mountpoint)
        XCTAssertEqual(status["thumbnails_rendered"], "1", "good.jpg alone: the failure kept is not decoded again")
        XCTAssertEqual(status["thumbnail_failures"], "1")
        mount.finish()

        // Under other limits (the failure might be theirs), it is listed and tried again.
        mount = try Mount(source: folder, options: ["-o", "thumbnail_max_pixels=100000000"])
        XCTAssertEqual(readdirNames(mount.path("thumbnails/200x200"))?.sorted(), ["good.jpg", "undecodable.jpg"])
        XCTAssertEqual(readFile(mount.path("thumbnails/200x200/undecodable.jpg")).failure?.code, EIO)
        mount.finish(allowing: ["cannot make a thumbnail of undecodable.jpg"])
    }

    /// Thumbnails whose failure is certain from the scan's header reads are not listed at all: a
    /// HEIF cut before its image data, a movie whose samples lie past the file's end. A first
    /// `tar` of `thumbnails/` exits 0; `.albumfs/errors` says why for each.
    func testThumbnailsCertainToFailFromTheHeaderAreNotListed() throws {
        let folder = makeTempFolder("certain-failures")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let heic = try SampleHEIF.heif(.marker(width: 64, height: 48))
        let mdat = try XCTUnwrap((0..<(heic.count - 4)).first { heic[$0..<($0 + 4)].elementsEqual("mdat".utf8) }) - 4
        let movie = try SampleVideo.video(.marker(width: 96, height: 64), container: .mp4)
        for (name, bytes) in [("cut.heic", Array(heic.prefix(mdat + 12))), ("lost.mp4", SampleVideo.movingChunks(of: movie, by: 1 << 30)),
                              ("good.heic", heic), ("clip.mp4", movie)] {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes)))
        }
        let mount = try Mount(source: folder)
        XCTAssertEqual(readdirNames(mount.path("thumbnails/200x200"))?.sorted(), ["clip.jpg", "good.jpg"])
        XCTAssertNotNil(statOf(mount.path("by-date")), "the files themselves are shown")
        let tar = runCommand("/bin/bash", ["-o", "pipefail", "-c", "tar -C \(mount.path("thumbnails")) -cf - 200x200 | wc -c"])
        XCTAssertEqual(tar.status, 0, tar.stderr)
        let errors = try String(contentsOfFile: mount.path(".albumfs/errors"), encoding: .utf8)
        XCTAssertTrue(errors.contains("cut.heic: ") && errors.contains(Unrenderable.noImageData), errors)
        XCTAssertTrue(errors.contains("lost.mp4: ") && errors.contains(Unrenderable.samplesPastEnd), errors)
        XCTAssertEqual(daemonStatus(mount.mountpoint)["thumbnails_rendered"], "2", "the two whole files' thumbnails only")
        mount.finish()
    }

    func testPixelLimitGivesEIO() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path, options: ["-o", "thumbnail_max_pixels=1000"])
        XCTAssertEqual(readFile(mount.path("thumbnails/200x200/DSC01234.jpg")).failure?.code, EIO)
        mount.finish(allowing: ["pixel limit"])
    }

    /// A progressive JPEG over `thumbnail_memory` gets no thumbnail (EIO, said in
    /// `.albumfs/errors` with the figure); the same photo stored baseline renders.
    func testAThumbnailOverItsMemoryGivesEIOAndSaysWhy() throws {
        let folder = makeTempFolder("memory")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = SampleImage.marker(width: 3000, height: 2000)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/progressive.jpg", contents: Data(try SampleJPEG.jpeg(image, kind: .progressive))))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/baseline.jpg", contents: Data(try SampleJPEG.jpeg(image))))
        let mount = try Mount(source: folder, options: ["-o", "thumbnail_memory=16M"])
        XCTAssertEqual(readFile(mount.path("thumbnails/200x200/progressive.jpg")).failure?.code, EIO)
        XCTAssertEqual(try readFile(mount.path("thumbnails/200x200/baseline.jpg")).get().count, 30_000)
        let errors = (try? String(contentsOfFile: mount.path(".albumfs/errors"), encoding: .utf8)) ?? ""
        XCTAssertEqual(errors, "progressive.jpg: cannot make a thumbnail: a 3000x2000 progressive JPEG needs 20 MB to decode, "
                       + "over the 16 MB a thumbnail may take (-o thumbnail_memory)\n")
        mount.finish(allowing: ["cannot make a thumbnail of progressive.jpg"])
    }

    func testOtherSizesAndAnUnwritableCache() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path, options: ["-o", "thumbnail_sizes=200x200,400x300,cache_dir=/proc/albumfs-no-cache"])
        XCTAssertEqual(readdirNames(mount.path("thumbnails")), ["200x200", "400x300"])
        let bytes = try readFile(mount.path("thumbnails/400x300/IMG_1234.jpg")).get()
        XCTAssertEqual(bytes.count, 400 * 300 * 3 / 4)
        let image = try XCTUnwrap(DecodedImage(jpeg: bytes))
        XCTAssertEqual([image.width, image.height], [400, 300])
        XCTAssertTrue(mount.stderr.contains("warning: thumbnail cache /proc/albumfs-no-cache cannot be written"), mount.stderr)
        mount.finish(allowing: ["warning: thumbnail cache /proc/albumfs-no-cache cannot be written"])
    }

    func testACameraPreviewServesSmallBoxesAndTheFullImageLargeOnes() throws {
        // The preview is green and the main image red, so the thumbnail tells which one was decoded.
        let folder = makeTempFolder("mpf")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let main = try SampleJPEG.jpeg(.solid(width: 2400, height: 1600, 220, 20, 20))
        let preview = try SampleJPEG.jpeg(.solid(width: 960, height: 640, 20, 200, 20))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/cam.jpg", contents: Data(SampleJPEG.withMPFPreview(main, preview: preview))))
        let mount = try Mount(source: folder, options: ["-o", "thumbnail_sizes=200x200,600x600"])
        let small = try XCTUnwrap(DecodedImage(jpeg: try readFile(mount.path("thumbnails/200x200/cam.jpg")).get()))
        assertColour(small.meanColour, (20, 200, 20), "200x200 from the preview")
        let large = try XCTUnwrap(DecodedImage(jpeg: try readFile(mount.path("thumbnails/600x600/cam.jpg")).get()))
        assertColour(large.meanColour, (220, 20, 20), "600x600 from the full image")
        mount.finish()
    }

    /// A 12 MP phone photo laid out as phones write it (EXIF after JFIF, Apple's maker note, a
    /// 160x120 IFD1 thumbnail, a motion photo's video after the image): a small box is made from
    /// the IFD1 thumbnail (green), a 200x200 one from the image (red), both of the size stat
    /// promised (the 64x48 one at the 8 KiB floor), and the original reads whole, video included.
    func testAPhonePhotoAt12MPServesItsExifThumbnailToSmallBoxes() throws {
        let folder = makeTempFolder("12mp")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var exif = SampleExif.camera("Apple", "iPhone 16 Pro", ExifTime("2025:03:11 23:30:10", offset: "-05:00"), order: .motorola)
        exif.makerNote = .apple(mediaGroup: "6A1C5E9B-3F4D-4C2A-9E8B-1D2F3A4B5C6D")
        exif.thumbnail = try SampleJPEG.jpeg(.solid(width: 160, height: 120, 20, 200, 20))
        let still = SampleJPEG.insertingAPP1(exif.payload(), into: try SampleJPEG.jpeg(.solid(width: 4032, height: 3024, 220, 20, 20)),
                                           afterLeadingSegments: 1)
        let bytes = SampleMotionPhoto.motionPhoto(still, video: MovieBoxes.isoMediaStub(length: 300_000))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/IMG_5001.JPG", contents: Data(bytes)))
        let mount = try Mount(source: folder, options: ["-o", "thumbnail_sizes=64x48,200x200"])
        let small = try readFile(mount.path("thumbnails/64x48/IMG_5001.jpg")).get()
        XCTAssertEqual(small.count, 8192, "the floor")
        XCTAssertEqual(statOf(mount.path("thumbnails/64x48/IMG_5001.jpg"))?.st_size, 8192)
        let smallImage = try XCTUnwrap(DecodedImage(jpeg: small))
        XCTAssertEqual([smallImage.width, smallImage.height], [64, 48])
        assertColour(smallImage.meanColour, (20, 200, 20), "64x48 from the IFD1 thumbnail")
        let large = try readFile(mount.path("thumbnails/200x200/IMG_5001.jpg")).get()
        XCTAssertEqual(large.count, 30_000)
        assertColour(try XCTUnwrap(DecodedImage(jpeg: large)).meanColour, (220, 20, 20), "200x200 from the image")
        XCTAssertEqual(try readFile(mount.path("non-screenshots/IMG_5001.JPG")).get(), bytes)
        XCTAssertEqual(xattr(mount.path("non-screenshots/IMG_5001.JPG"), "user.albumfs.capture_time"), "2025-03-11T23:30:10-05:00")
        mount.finish()
    }

    func testASlowRenderBlocksNeitherListingsNorOriginals() throws {
        let folder = makeTempFolder("slow")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A 24 MP PNG takes far longer to decode than a listing or a read of another file.
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/big.png", contents: Data(try SamplePNG.png(.marker(width: 6000, height: 4000)))))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/small.jpg", contents: Data(try SampleJPEG.jpeg(.marker(width: 32, height: 32)))))
        let mount = try Mount(source: folder)
        let renderDone = DispatchSemaphore(value: 0)
        let bigThumb = mount.path("thumbnails/200x200/big.jpg")
        let started = Date()
        let finished = LockedDate()
        let thumbnail = Locked<Result<[UInt8], Errno>?>(nil)
        Thread.detachNewThread {
            let read = readFile(bigThumb)
            thumbnail.withLock { $0 = read }
            finished.set(Date())
            renderDone.signal()
        }
        usleep(50_000)
        let t = Date()
        for _ in 0..<20 {
            XCTAssertNotNil(readdirNames(mount.path("thumbnails/200x200")))
            XCTAssertNotNil(try? readFile(mount.path("non-screenshots/small.jpg")).get())
        }
        let quick = Date().timeIntervalSince(t)
        XCTAssertEqual(renderDone.wait(timeout: .now() + 120), .success, "the render ended")
        XCTAssertEqual(try XCTUnwrap(thumbnail.withLock { $0 }).get().count, 30_000, "the slow render gave its thumbnail")
        let renderSeconds = finished.get().timeIntervalSince(started)
        XCTAssertLessThan(quick, renderSeconds, "20 listings and reads finished while one render ran (\(quick) s vs \(renderSeconds) s)")
        XCTAssertGreaterThan(finished.get(), t.addingTimeInterval(quick), "the render still ran when the listings ended")
        mount.finish()
    }

    func testBadThumbnailOptions() {
        for bad in ["thumbnail_sizes=200", "thumbnail_sizes=0x0", "thumbnail_sizes=100x100000", "thumbnail_sizes=a,b",
                    "thumbnail_sizes=16x16,17x17,18x18,19x19,20x20,21x21,22x22,23x23,24x24", "cache_size=lots", "cache_size=10",
                    "thumbnail_max_pixels=-1", "thumbnail_memory=1M", "thumbnail_memory=lots", "thumbnail_memory=",
                    "thumbnail_ahead=-1", "thumbnail_ahead=65", "thumbnail_ahead=two", "thumbnail_ahead",
                    "thumbnail_timeout=0", "thumbnail_timeout=3601", "thumbnail_timeout=0.5", "thumbnail_timeout",
                    "desktop_thumbnails_size=10", "desktop_thumbnails_size=lots", "desktop_thumbnails_size"] {
            let r = runCommand(albumfsBinary(), ["-o", bad, "/tmp", "/tmp"])
            XCTAssertEqual(r.status, 2, "\(bad): \(r.stderr)")
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}

/// A date set on one thread and read on another.
final class LockedDate: @unchecked Sendable {
    private var value = Date.distantPast
    private let lock = NSLock()
    func set(_ d: Date) { lock.lock(); value = d; lock.unlock() }
    func get() -> Date { lock.lock(); defer { lock.unlock() }; return value }
}
