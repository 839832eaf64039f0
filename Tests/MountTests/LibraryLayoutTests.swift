import AlbumCore
import AlbumSample
import Foundation
import CSysXattr
import Glibc
import XCTest

/// The tree a user sees for the generated sample library: folders, names, order, mtimes, bytes.
final class LibraryLayoutTests: XCTestCase {
    var source: SampleSource!
    var mount: Mount!

    override func setUpWithError() throws {
        source = try SampleSource()
        mount = try Mount(source: source.path)
    }

    override func tearDown() {
        mount?.finish()
        source?.remove()
    }

    /// Every file below `folder` in the mount, as paths relative to the mount.
    func files(under folder: String) -> [String] {
        var out: [String] = []
        var pending = [folder]
        while let f = pending.popLast() {
            for name in readdirNames(mount.path(f)) ?? [] {
                let rel = f + "/" + name
                let st = statOf(mount.path(rel))!
                if st.st_mode & S_IFMT == S_IFDIR { pending.append(rel) } else { out.append(rel) }
            }
        }
        return out
    }

    func testRootHoldsTheViews() {
        XCTAssertEqual(readdirNames(mount.mountpoint), ["by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types", "places", "duplicates", "filter", "thumbnails", "picked", ".albumfs"])
    }

    /// Stills are in `screenshots/` or `non-screenshots/`, videos in `videos/` (a screen
    /// recording too), but for a Live Photo's motion part, which is in `by-date/` only, beside its
    /// still; both name the other's `by-date/` path in `user.albumfs.live_photo`.
    func testEveryPhotoIsOnceInByDateOnItsDayAndInExactlyOneFlatView() {
        var byDate: [String: [String]] = [:], motionVideos: [String: [String]] = [:]
        for f in files(under: "by-date") {
            let src = String(xattr(mount.path(f), "user.albumfs.source")!.dropFirst(source.path.count + 1))
            if isMotionVideo(f) { motionVideos[src, default: []].append(f) } else { byDate[src, default: []].append(f) }
        }
        // A motion photo's video: beside its still, in its day folder, and nowhere else.
        for item in source.items {
            let videos = motionVideos[item.path] ?? []
            XCTAssertEqual(videos.count, item.expectedMotionVideo == nil ? 0 : 1, "\(item.path)'s motion video: \(videos)")
            if let video = videos.first, let still = byDate[item.path]?.first {
                XCTAssertEqual(video.folderBeforeLastSlash, still.folderBeforeLastSlash, item.path)
                XCTAssertEqual(xattr(mount.path(still), "user.albumfs.motion_photo"), video, item.path)
            }
        }
        func counts(_ view: String) -> [String: Int] {
            var n: [String: Int] = [:]
            for f in files(under: view) { n[String(xattr(mount.path(f), "user.albumfs.source")!.dropFirst(source.path.count + 1)), default: 0] += 1 }
            return n
        }
        let (shots, others, videos) = (counts("screenshots"), counts("non-screenshots"), counts("videos"))
        for item in source.items {
            guard let day = item.expectedDay else {
                XCTAssertNil(byDate[item.path], "\(item.path) is not a photo and must not be listed")
                continue
            }
            let places = byDate[item.path] ?? []
            XCTAssertEqual(places.count, 1, "\(item.path) in by-date: \(places)")
            if let place = places.first {
                let parts = place.split(separator: "/").map(String.init)
                XCTAssertEqual(Array(parts[1...3]), [String(day.prefix(4)), String(day.prefix(7)), day], item.path)
            }
            let still = !item.expectedVideo
            XCTAssertEqual(shots[item.path] ?? 0, still && item.expectedScreenshot ? 1 : 0, "screenshots/ for \(item.path)")
            XCTAssertEqual(others[item.path] ?? 0, still && !item.expectedScreenshot ? 1 : 0, "non-screenshots/ for \(item.path)")
            XCTAssertEqual(videos[item.path] ?? 0, !still && item.expectedLivePartner == nil ? 1 : 0, "videos/ for \(item.path)")
            if let place = places.first {
                let partner = item.expectedLivePartner.flatMap { byDate[$0]?.first }
                XCTAssertEqual(xattr(mount.path(place), "user.albumfs.live_photo"), partner, "live_photo of \(item.path)")
                if item.expectedVideo {
                    let shot = xattr(mount.path(place), "user.albumfs.screenshot") ?? ""
                    XCTAssertEqual(shot.hasPrefix("yes (screen recording"), item.expectedScreenshot, "\(item.path): \(shot)")
                }
            }
            if let expected = item.expectedDateSource, let place = places.first {
                XCTAssertEqual(xattr(mount.path(place), "user.albumfs.date_source"), expected.rawValue, item.path)
            }
            if let expected = item.expectedCaptureTime, let place = places.first {
                XCTAssertEqual(xattr(mount.path(place), "user.albumfs.capture_time"), expected, item.path)
            }
        }
    }

    func testEveryListingIsNewestFirstInReaddirOrderAndMtimesAgree() {
        var pending = [""]
        var folders = 0
        while let f = pending.popLast() {
            let names = readdirNames(mount.path(f))!
            folders += 1
            let stats = names.map { statOf(mount.path(f.isEmpty ? $0 : f + "/" + $0))! }
            let times = stats.map { Timestamp(seconds: Int64($0.st_mtim.tv_sec), nanoseconds: $0.st_mtim.tv_nsec) }
            if f.hasPrefix("by-date") && f.split(separator: "/").count < 4 {
                // Year, month and day folders: names newest first.
                XCTAssertEqual(names, names.sorted(by: >), "folder order in \(f)")
            }
            // Camera folders, and places' countries, regions and cities: by name, in byte order.
            let byName = f == "by-camera" || (f.hasPrefix("places") && f.split(separator: "/").count < 4)
            if byName {
                XCTAssertEqual(names, names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "folder order in \(f)")
            }
            if f == "media-types" {
                // Kind folders: in the kinds' order, as the pickers list them.
                XCTAssertEqual(names, MediaKind.allCases.map(\.name), "folder order in \(f)")
            }
            if !f.isEmpty && !byName && f != "media-types" && !(f == "by-date" || f.split(separator: "/").count < 4 && f.hasPrefix("by-date")) {
                XCTAssertEqual(times, times.sorted(by: >), "readdir order vs mtime in \(f): \(names)")
            }
            for (name, st) in zip(names, stats) where st.st_mode & S_IFMT == S_IFDIR {
                pending.append(f.isEmpty ? name : f + "/" + name)
            }
        }
        XCTAssertGreaterThan(folders, 10)
    }

    /// Whether a listed file is a motion photo's video (made from its still: `MotionPhotos`).
    func isMotionVideo(_ f: String) -> Bool {
        xattr(mount.path(f), "user.albumfs.format") == "video" && xattr(mount.path(f), "user.albumfs.motion_photo") != nil
    }

    func testCaptureTimeIsTheMtime() throws {
        // The Pixel photo: 2024:05:17 14:03:04.567 at +02:00 is 12:03:04.567 UTC.
        let st = try XCTUnwrap(statOf(mount.path("by-date/2024/2024-05/2024-05-17/PXL_20240517_120304567.jpg")))
        XCTAssertEqual(st.st_mtim.tv_sec, 1_715_947_384)
        XCTAssertEqual(st.st_mtim.tv_nsec, 567_000_000)
        XCTAssertEqual(xattr(mount.path("by-date/2024/2024-05/2024-05-17/PXL_20240517_120304567.jpg"), "user.albumfs.capture_time"),
                       "2024-05-17T14:03:04.567+02:00")
    }

    func testOriginalsReadByteIdenticalWithTheSourceSize() throws {
        var checked = 0
        for f in files(under: "by-date") + files(under: "screenshots") {
            let src = xattr(mount.path(f), "user.albumfs.source")!
            let viaMount = try Data(contentsOf: URL(fileURLWithPath: mount.path(f)))
            var original = try Data(contentsOf: URL(fileURLWithPath: src))
            if isMotionVideo(f) {
                // A motion photo's video: its range of the still's file.
                let item = try XCTUnwrap(source.items.first { source.path + "/" + $0.path == src }, f)
                let clip = try XCTUnwrap(item.expectedMotionVideo, f)
                XCTAssertEqual(original.suffix(clip.count), Data(clip), f)
                original = Data(clip)
            }
            XCTAssertEqual(viaMount, original, f)
            XCTAssertEqual(Int(statOf(mount.path(f))!.st_size), original.count, f)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 30)
    }

    func testSameNamesInOneFolderGetStableSuffixes() throws {
        let day = "by-date/2023/2023-07/2023-07-14"
        let names = try XCTUnwrap(readdirNames(mount.path(day)))
        let ones = names.filter { $0.hasPrefix("IMG_0001") }
        XCTAssertEqual(ones.count, 2, "\(names)")
        XCTAssertTrue(ones.contains("IMG_0001.JPG"))
        let suffixed = try XCTUnwrap(ones.first { $0 != "IMG_0001.JPG" })
        XCTAssertTrue(suffixed.hasPrefix("IMG_0001~") && suffixed.hasSuffix(".JPG"), suffixed)
        // The plain name goes to the source path that sorts first; the suffix comes from the other's path.
        XCTAssertEqual(xattr(mount.path(day + "/IMG_0001.JPG"), "user.albumfs.source"), source.path + "/DCIM/100CANON/IMG_0001.JPG")
        XCTAssertEqual(suffixed, "IMG_0001~" + EntryNames.tag(for: "Trip/IMG_0001.JPG") + ".JPG")
    }

    func testModesOwnerAndStatfs() throws {
        // A photo shows its source file's owner and mode (as sshfs does); its thumbnail the read bits.
        let file = try XCTUnwrap(statOf(mount.path("screenshots/clip.png")))
        XCTAssertEqual(chmod(source.path + "/Pictures/Screenshots/clip.png", 0o640), 0)
        let original = try XCTUnwrap(statOf(source.path + "/Pictures/Screenshots/clip.png"))
        XCTAssertEqual(file.st_mode & 0o7777, 0o644)
        XCTAssertEqual(file.st_mode & S_IFMT, S_IFREG)
        XCTAssertEqual(file.st_uid, original.st_uid)
        XCTAssertTrue(eventually { statOf(mount.path("screenshots/clip.png")).map { $0.st_mode & 0o7777 } == 0o640 }, "a chmod in SOURCE shows")
        XCTAssertEqual(statOf(mount.path("thumbnails/200x200/clip.jpg")).map { $0.st_mode & 0o7777 }, 0o440)
        let dir = try XCTUnwrap(statOf(mount.path("by-date")))
        XCTAssertEqual(dir.st_mode & 0o7777, 0o555)
        XCTAssertEqual(dir.st_mode & S_IFMT, S_IFDIR)
        var fs = statvfs()
        XCTAssertEqual(statvfs(mount.mountpoint, &fs), 0)
        XCTAssertEqual(fs.f_namemax, 255)
        XCTAssertGreaterThan(fs.f_files, 40)
        // `df` shows the disk SOURCE is on, free space included: not a full disk to a desktop's
        // low-disk-space warning.
        var disk = statvfs()
        XCTAssertEqual(statvfs(source.path, &disk), 0)
        XCTAssertEqual(fs.f_frsize, disk.f_frsize)
        XCTAssertEqual(fs.f_blocks, disk.f_blocks)
        XCTAssertGreaterThan(fs.f_bavail, 0)
    }

    func testInodesAreStableWhileMounted() throws {
        let a = try XCTUnwrap(statOf(mount.path("non-screenshots/DSC01234.JPG"))).st_ino
        _ = files(under: "by-date")
        let b = try XCTUnwrap(statOf(mount.path("non-screenshots/DSC01234.JPG"))).st_ino
        XCTAssertEqual(a, b)
        XCTAssertEqual(statOf(mount.mountpoint)?.st_ino, 1)
    }

    func testExtendedAttributesExplainEachDecision() throws {
        let wallpaper = mount.path("non-screenshots/screenshot.jpg")
        XCTAssertEqual(xattr(wallpaper, "user.albumfs.screenshot"), "no (camera exif)")
        XCTAssertEqual(xattr(mount.path("screenshots/IMG_1300.PNG"), "user.albumfs.screenshot"),
                       "yes (xmp:exif:UserComment is Screenshot)")
        // Named for what it is: the file's name, with its format's extension where that is wrong or missing.
        XCTAssertEqual(xattr(mount.path("non-screenshots/jpeg-named.jpg"), "user.albumfs.format"), "jpeg")
        XCTAssertEqual(xattr(mount.path("non-screenshots/jpeg-named.jpg"), "user.albumfs.source"), source.path + "/Edge/jpeg-named.png")
        XCTAssertEqual(xattr(mount.path("non-screenshots/png-named.png"), "user.albumfs.format"), "png")
        XCTAssertEqual(xattr(mount.path("non-screenshots/mongolia.jpg"), "user.albumfs.source"), source.path + "/Edge/mongolia")
        XCTAssertEqual(xattr(mount.path("non-screenshots/orient-6.jpg"), "user.albumfs.orientation"), "6")
        XCTAssertTrue(xattr(mount.path("non-screenshots/corrupt-exif.jpg"), "user.albumfs.problems")?.contains("corrupt EXIF") ?? false)
        // A stronger date that was refused says what it was and why; a photo whose best date
        // was taken has none.
        XCTAssertEqual(xattr(mount.path("non-screenshots/sentinel.jpg"), "user.albumfs.date_rejected"),
                       #"exif:DateTimeOriginal "0000:00:00 00:00:00" (sentinel); exif:DateTimeDigitized "2002:12:08 12:00:00" (known sentinel)"#)
        XCTAssertEqual(xattr(mount.path("non-screenshots/future.jpg"), "user.albumfs.date_rejected"),
                       #"exif:DateTimeOriginal "2099:01:01 00:00:00" (in the future)"#)
        XCTAssertNil(xattr(wallpaper, "user.albumfs.date_rejected"))
        XCTAssertEqual(errno, ENODATA)
        // Folders carry none.
        XCTAssertEqual(listxattr(mount.path("by-date"), nil, 0), 0)
        XCTAssertNil(xattr(wallpaper, "user.albumfs.nonexistent"))
        XCTAssertEqual(errno, ENODATA)
        // ACLs and security labels are not albumfs's: EOPNOTSUPP, which `ls -l` remembers per device.
        for name in ["system.posix_acl_access", "security.selinux"] {
            for path in [wallpaper, mount.path("by-date")] {
                XCTAssertNil(xattr(path, name))
                XCTAssertEqual(errno, EOPNOTSUPP, "\(name) of \(path)")
            }
        }
        let long = shell("ls -l '\(mount.path("non-screenshots"))'")
        XCTAssertEqual(long.status, 0, long.stderr)
        XCTAssertFalse(long.stdout.split(separator: "\n").dropFirst().contains { $0.split(separator: " ").first?.hasSuffix("+") ?? true }, long.stdout)
        let list = shell("getfattr -d '\(wallpaper)'")
        XCTAssertEqual(list.status, 0)
        for key in ["source", "capture_time", "date_source", "screenshot"] {
            XCTAssertTrue(list.stdout.contains("user.albumfs.\(key)="), list.stdout)
        }
    }

    func testWriteOperationsAnswerEROFS() {
        let file = mount.path("screenshots/clip.png")
        let dir = mount.path("by-date")
        func expectEROFS(_ rc: Int32, _ what: String) {
            XCTAssertEqual(rc, -1, what)
            XCTAssertEqual(errno, EROFS, "\(what): \(String(cString: strerror(errno)))")
        }
        expectEROFS(open(file, O_WRONLY), "open for writing")
        expectEROFS(open(file, O_RDONLY | O_TRUNC), "open with O_TRUNC")
        expectEROFS(open(dir + "/new.jpg", O_CREAT | O_WRONLY, 0o644), "create")
        expectEROFS(mkdir(dir + "/new", 0o755), "mkdir")
        expectEROFS(unlink(file), "unlink")
        expectEROFS(rmdir(mount.path("by-date/2024")), "rmdir")
        expectEROFS(rename(file, mount.path("screenshots/renamed.png")), "rename")
        expectEROFS(chmod(file, 0o644), "chmod")
        expectEROFS(chown(file, 1, 1), "chown")
        expectEROFS(truncate(file, 0), "truncate")
        expectEROFS(setxattr(file, "user.test", "x", 1, 0), "setxattr")
        expectEROFS(removexattr(file, "user.albumfs.format"), "removexattr")
        expectEROFS(link(file, dir + "/hard.png"), "link")
        expectEROFS(symlink("x", dir + "/link"), "symlink")
        expectEROFS(mknod(dir + "/fifo", S_IFIFO | 0o644, 0), "mknod")
        XCTAssertEqual(access(file, R_OK), 0)
        expectEROFS(access(file, W_OK), "access(W_OK)")
        expectEROFS(access(dir, W_OK), "access(W_OK) of a folder")
        // A file manager asks access(X_OK) to offer "Run": photos are not programs.
        XCTAssertEqual(access(file, X_OK), -1)
        XCTAssertEqual(errno, EACCES)
        XCTAssertEqual(access(dir, R_OK | X_OK), 0)
    }

    /// A copy out of the mount is like the user's own file: `cp -a` keeps the source's mode and
    /// the `user.albumfs.*` attributes (their provenance); `cp --preserve=mode,timestamps` copies
    /// none of them, the capture time kept as the mtime.
    func testCopiesKeepTheModeAndTheAttributesUnlessAskedNot() throws {
        let out = makeTempFolder("copies")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let photo = mount.path("non-screenshots/DSC01234.JPG")
        XCTAssertEqual(runCommand("/bin/cp", ["-a", photo, out + "/a.jpg"]).status, 0)
        XCTAssertEqual(runCommand("/bin/cp", ["--preserve=mode,timestamps", photo, out + "/b.jpg"]).status, 0)
        var st = stat()
        XCTAssertEqual(stat(source.path + "/Sony/DSC01234.JPG", &st), 0)
        let sourceMode = st.st_mode & 0o7777
        for name in ["a.jpg", "b.jpg"] {
            XCTAssertEqual(stat(out + "/" + name, &st), 0)
            XCTAssertEqual(st.st_mode & 0o7777, sourceMode, name)
            XCTAssertEqual(st.st_mtim.tv_sec, statOf(photo)?.st_mtim.tv_sec, "\(name): the capture time")
        }
        XCTAssertEqual(xattr(out + "/a.jpg", "user.albumfs.source"), source.path + "/Sony/DSC01234.JPG")
        XCTAssertEqual(xattr(out + "/a.jpg", "user.albumfs.date_source"), "exif:DateTimeOriginal")
        XCTAssertNil(xattr(out + "/b.jpg", "user.albumfs.source"))
        XCTAssertEqual(listxattr(out + "/b.jpg", nil, 0), 0, "no attribute at all")
    }

    /// A photo is one file in every view it is in (one inode, `st_nlink` the number of views), so
    /// `du` counts it once and `cp -a` keeps the views' copies one file; a thumbnail is its own
    /// file; a Live Photo's motion part, in `by-date/` and `by-camera/` only, has two links.
    func testOnePhotoIsOneInodeInEveryView() throws {
        let day = "by-date/2023/2023-07/2023-07-14/IMG_0001.JPG"
        let a = try XCTUnwrap(statOf(mount.path(day))), b = try XCTUnwrap(statOf(mount.path("non-screenshots/IMG_0001.JPG")))
        let c = try XCTUnwrap(statOf(mount.path("by-camera/Canon EOS 5D Mark IV/IMG_0001.JPG")))
        XCTAssertEqual(a.st_ino, b.st_ino)
        XCTAssertEqual(a.st_ino, c.st_ino)
        XCTAssertEqual(a.st_nlink, 3)
        XCTAssertEqual(b.st_nlink, 3)
        XCTAssertNotEqual(statOf(mount.path("thumbnails/200x200/IMG_0001.jpg"))?.st_ino, a.st_ino)
        XCTAssertEqual(statOf(mount.path("videos/IMG_1401.MOV"))?.st_ino, statOf(mount.path("by-date/2024/2024-05/2024-05-18/IMG_1401.MOV"))?.st_ino)
        XCTAssertEqual(statOf(mount.path("by-date/2024/2024-05/2024-05-20/IMG_1402.MOV"))?.st_nlink, 2, "a Live Photo's motion part")
        // du of the originals' views counts each file once: as much as by-date/ alone, and the
        // three flat folders, favorites/, by-camera/ and its camera folders themselves (4096 bytes each).
        func du(_ args: String) -> Int { Int(shell("cd '\(mount.mountpoint)' && du -s --apparent-size -B1 \(args) | tail -1 | cut -f1").stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
        let cameras = try XCTUnwrap(readdirNames(mount.path("by-camera"))).count
        XCTAssertGreaterThan(cameras, 5)
        XCTAssertEqual(du("-c by-date screenshots non-screenshots videos favorites by-camera"), du("-c by-date") + (5 + cameras) * 4096)
        // cp -a of two views keeps one file.
        let out = makeTempFolder("links")
        defer { try? FileManager.default.removeItem(atPath: out) }
        XCTAssertEqual(runCommand("/bin/cp", ["-a", mount.path("by-date"), mount.path("non-screenshots"), out]).status, 0)
        var x = stat(), y = stat()
        XCTAssertEqual(stat(out + "/" + day, &x), 0)
        XCTAssertEqual(stat(out + "/non-screenshots/IMG_0001.JPG", &y), 0)
        XCTAssertEqual(x.st_ino, y.st_ino, "one file, two names")
    }

    /// What desktop clients do with every listed file, run as they run it: Python's `mmap` of
    /// each photo and thumbnail (a SIGBUS would kill it), GNOME's thumbnailer (`gdk-pixbuf-thumbnailer`) on every
    /// thumbnail and every still original whose content is whole; `du` of the originals' views
    /// is the sum of the photos' sizes.
    func testDesktopClientsReadEveryListedFile() throws {
        let mmap = runCommand("/usr/bin/python3", ["-c", """
            import mmap, os, sys
            n = 0
            for folder, folders, names in os.walk(sys.argv[1]):
                # (.albumfs's texts are read with direct I/O, which FUSE does not map: ENODEV.)
                folders[:] = [f for f in folders if f != ".albumfs"]
                for name in names:
                    with open(os.path.join(folder, name), "rb") as f:
                        if os.fstat(f.fileno()).st_size:
                            with mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
                                sum(m[i] for i in range(0, len(m), 4096))
                    n += 1
            print(n)
            """, mount.mountpoint], timeout: 120)
        XCTAssertEqual(mmap.status, 0, mmap.stderr)
        XCTAssertGreaterThan(Int(mmap.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 100)
        let out = makeTempFolder("gdk")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let stills = source.items.filter { $0.expectedDay != nil && !$0.expectedVideo && !$0.expectedWithoutThumbnail }
        var checked = 0
        for name in readdirNames(mount.path("thumbnails/200x200")) ?? [] {
            let r = runCommand("/usr/bin/gdk-pixbuf-thumbnailer", ["-s", "128", mount.path("thumbnails/200x200/" + name), out + "/t.png"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            checked += 1
        }
        var places: [String: String] = [:]
        for f in files(under: "by-date") where !isMotionVideo(f) { places[xattr(mount.path(f), "user.albumfs.source") ?? ""] = f }
        for item in stills where !item.path.hasSuffix(".HEIC") {
            let place = try XCTUnwrap(places[source.path + "/" + item.path], item.path)
            let r = runCommand("/usr/bin/gdk-pixbuf-thumbnailer", ["-s", "128", mount.path(place), out + "/o.png"])
            XCTAssertEqual(r.status, 0, "\(item.path): \(r.stderr)")
        }
        XCTAssertGreaterThan(checked, 50)
        let sizes = source.items.filter { $0.expectedDay != nil }.reduce(0) { $0 + $1.bytes.count + ($1.expectedMotionVideo?.count ?? 0) }
        let du = shell("cd '\(mount.mountpoint)' && du -s -b by-date screenshots non-screenshots videos | awk '{ s += $1 } END { print s }'")
        let folders = Int(shell("cd '\(mount.mountpoint)' && find by-date screenshots non-screenshots videos -type d | wc -l").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        XCTAssertEqual(Int(du.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), sizes + 4096 * folders, "each photo counted once")
    }

    func testShellToolsSeeTheTree() {
        XCTAssertTrue(eventually(60) { daemonStatus(mount.mountpoint)["similar"] == "done" }, "\(daemonStatus(mount.mountpoint))")
        let find = shell("cd '\(mount.mountpoint)' && find . -path ./.albumfs -prune -o -type f -print | wc -l")
        XCTAssertEqual(find.status, 0)
        let total = source.items.filter { $0.expectedDay != nil }.count
        let motion = source.items.filter { $0.expectedVideo && $0.expectedLivePartner != nil }.count
            + source.items.filter(\.expectedWithoutThumbnail).count
        let motionVideos = source.items.filter { $0.expectedMotionVideo != nil }.count
        let shots = source.items.filter { $0.expectedDay != nil && $0.expectedScreenshot && !$0.expectedVideo }.count
        let kinds = MediaTypesTests.listings.filter { $0.0 != "bursts" }.reduce(0) { $0 + $1.1.count }
        // Files with the same bytes as another (but a Live Photo's motion part, and empty files) are
        // in duplicates/ too.
        var byBytes: [[UInt8]: Int] = [:]
        for item in source.items where item.expectedDay != nil && !item.bytes.isEmpty && !(item.expectedVideo && item.expectedLivePartner != nil) {
            byBytes[item.bytes, default: 0] += 1
        }
        let copies = byBytes.values.filter { $0 > 1 }.reduce(0, +)
        XCTAssertGreaterThan(copies, 0, "the sample holds copies")
        let placed = source.items.filter { $0.expectedPlace != nil }.count
        // The sample's stills are nearly all one picture (`SampleImage.marker`): one group of
        // duplicates/similar/, counted from its listing once the hash pass has shown it.
        let alike = (readdirNames(mount.path("duplicates/similar")) ?? []).reduce(0) { $0 + (readdirNames(mount.path("duplicates/similar/" + $1))?.count ?? 0) }
        XCTAssertGreaterThan(alike, 40, "the sample's marker pictures are alike")
        XCTAssertEqual(Int(find.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), 4 * total - motion + motionVideos + kinds + 1 + copies + placed + alike,
                       "by-date + by-camera + one flat view (but a Live Photo's motion part) + one thumbnail each (but where nothing renders), a motion photo's video in by-date, each kind's photos in media-types, filter/README.txt, each copy in duplicates/, the photos in a place, and the similar photos")
        let tar = shell("tar -C '\(mount.mountpoint)' -cf - screenshots | tar -tf - | grep -c -v '/$'")
        XCTAssertEqual(Int(tar.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), shots)
        // Every original reads (an empty one is an empty file), and no thumbnail is listed for a
        // file with nothing to render: an archive of the whole mount is whole.
        let out = makeTempFolder("archive")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let archive = shell("tar -C '\(mount.mountpoint)' -cf '\(out)/mount.tar' .")
        XCTAssertEqual(archive.status, 0, archive.stderr)
        let lsT = shell("ls -t '\(mount.path("non-screenshots"))'")
        let lsF = shell("ls -f '\(mount.path("non-screenshots"))' | grep -v '^\\.\\.\\?$'")
        XCTAssertEqual(lsT.stdout, lsF.stdout, "ls -t agrees with readdir order")
    }
}
