import AlbumCore
import AlbumSample
import Foundation
import CZlib
import Glibc
import AlbumSystem
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
        let plain = try SampleJPEG.jpeg(.marker(width: 640, height: 480))
        for i in 2...5 { try SampleLibrary.writeFile(folder + "/IMG_000\(i).JPG", plain, mtime: SampleLibrary.defaultMtime + Int64(i)) }
        let m = try Mount(source: folder, options: ["-o", "allow_other", "-o", "thumbnail_ahead=0"])
        XCTAssertEqual(readFile(m.path("thumbnails/200x200/IMG_0001.jpg")).failure?.code, EIO)
        let errors = (try? String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8)) ?? ""
        XCTAssertTrue(errors.hasPrefix("IMG_0001.HEIC: cannot make a thumbnail: the render worker ended during the decode (killed by signal"),
                      errors)
        XCTAssertEqual(daemonStatus(m.mountpoint)["render_worker_restarts"], "1")
        XCTAssertEqual(try readFile(m.path("non-screenshots/IMG_0001.HEIC")).get(), heic)
        for i in 2...5 {
            // (`cat`: `wc -c` of a regular file asks its size, and reads nothing.)
            let other = runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c", "cat \"$0\" | wc -c",
                                                        m.path("thumbnails/200x200/IMG_000\(i).jpg")], timeout: 20)
            XCTAssertEqual(other.stdout, "30000\n", "another user's read: \(other.stderr)")
            XCTAssertEqual(try readFile(m.path("non-screenshots/IMG_000\(i).JPG")).get(), plain)
        }
        XCTAssertTrue(eventually { !(readdirNames(m.path("thumbnails/200x200"))?.contains("IMG_0001.jpg") ?? true) }, "left the listing")
        XCTAssertEqual(daemonStatus(m.mountpoint)["render_worker_restarts"], "1", "the crash happened once")
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnails_rendered"], "5")
        let status = daemonStatus(m.mountpoint)
        let workers = try XCTUnwrap(status["render_workers"])
        XCTAssertTrue(["1 of", "2 of", "3 of", "4 of"].contains { workers.hasPrefix($0) } && workers.hasSuffix(" of \(ProcessInfo.processInfo.activeProcessorCount + 1)"),
                      "\(status)")
        m.finish(allowing: ["cannot make a thumbnail of IMG_0001.HEIC"])
    }

    /// The workers (one per core) start once the first scan ends, in the background, before any
    /// thumbnail is read, and render nothing; a thumbnails folder opened starts any that ended.
    func testTheWorkersStartAheadOfTheFirstRead() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let m = try Mount(source: source.path)
        let cores = ProcessInfo.processInfo.activeProcessorCount + 1  // (the pool: one a core, one more)
        XCTAssertTrue(eventually(10) { daemonStatus(m.mountpoint)["render_workers"] == "\(cores) of \(cores)" },
                      daemonStatus(m.mountpoint)["render_workers"] ?? "")
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnails_rendered"], "0")
        let daemon = m.process.processIdentifier
        let started = workerPIDs(of: daemon)
        XCTAssertEqual(started.count, cores, "the daemon's children are its workers: \(started)")
        for pid in started { XCTAssertEqual(kill(pid, SIGKILL), 0) }
        XCTAssertTrue(eventually(5) { workerPIDs(of: daemon).isEmpty }, "the killed workers have ended")
        XCTAssertNotNil(readdirNames(m.path("thumbnails/200x200")))
        // (Each opening asks for the workers missing: one whose start failed under load is asked
        // for again by the next, as a file manager opens the folder again.)
        XCTAssertTrue(eventually(10) { _ = readdirNames(m.path("thumbnails/200x200")); return workerPIDs(of: daemon).count == cores },
                      "started anew: \(workerPIDs(of: daemon)), \(daemonStatus(m.mountpoint)["render_workers"] ?? "")")
        m.finish()
    }

    /// Another user cannot stop, signal or limit the workers of a root mount (they run as a user
    /// of their own, not `nobody`); and a worker stopped while idle (by root) does not outlive
    /// the mount: the unmount ends every worker.
    func testAnotherUserCannotTouchTheWorkersAndNoneOutlivesTheMount() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let m = try Mount(source: source.path, options: ["-o", "allow_other"])
        let cores = ProcessInfo.processInfo.activeProcessorCount + 1  // (the pool: one a core, one more)
        XCTAssertTrue(eventually(10) { workerPIDs(of: m.process.processIdentifier).count == cores })
        let workers = workerPIDs(of: m.process.processIdentifier)
        for pid in workers {
            for command in [["/bin/kill", "-STOP", String(pid)], ["/usr/bin/prlimit", "--pid", String(pid), "--nofile=0:0"]] {
                let r = runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + command, timeout: 20)
                XCTAssertNotEqual(r.status, 0, "\(command): \(r.stdout)")
                XCTAssertTrue(r.stderr.contains("not permitted"), r.stderr)
            }
        }
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get().count, 30_000)
        XCTAssertEqual(kill(workers[0], SIGSTOP), 0)
        m.finish()
        XCTAssertTrue(eventually(5) { workers.allSatisfy { access("/proc/\($0)", F_OK) != 0 } }, "workers left: \(workers)")
    }

    /// A daemon that dies, even by SIGKILL, takes its workers with it (each asked for SIGKILL when
    /// the daemon's thread that started it ends: `PR_SET_PDEATHSIG`), a stopped one too.
    func testWorkersEndWithAKilledDaemon() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let m = try Mount(source: source.path, options: ["-o", "auto_unmount"])
        let cores = ProcessInfo.processInfo.activeProcessorCount + 1  // (the pool: one a core, one more)
        XCTAssertTrue(eventually(10) { workerPIDs(of: m.process.processIdentifier).count == cores })
        let workers = workerPIDs(of: m.process.processIdentifier)
        XCTAssertEqual(kill(workers[0], SIGSTOP), 0)
        XCTAssertEqual(kill(m.process.processIdentifier, SIGKILL), 0)
        m.process.waitUntilExit()
        XCTAssertTrue(eventually(5) { workers.allSatisfy { access("/proc/\($0)", F_OK) != 0 } }, "workers left: \(workers)")
        XCTAssertTrue(eventually(5) { !isMounted(m.mountpoint) }, "auto_unmount cleared the mount")
    }

    /// Workers killed while idle (by an administrator, the kernel's out-of-memory killer) cost
    /// no thumbnail: the next renders find them gone before handing them anything, and go to
    /// workers started anew.
    func testWorkersKilledWhileIdleCostNoThumbnail() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let m = try Mount(source: source.path, options: ["-o", "thumbnail_ahead=0"])
        let names = try XCTUnwrap(readdirNames(m.path("thumbnails/200x200")))
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get().count, 30_000)
        let cores = ProcessInfo.processInfo.activeProcessorCount + 1  // (the pool: one a core, one more)
        XCTAssertTrue(eventually(10) { daemonStatus(m.mountpoint)["render_workers"] == "\(cores) of \(cores)" })
        let workers = workerPIDs(of: m.process.processIdentifier)
        XCTAssertEqual(workers.count, cores, "the daemon's children are its workers")
        for pid in workers { XCTAssertEqual(kill(pid, SIGKILL), 0) }
        for pid in workers { XCTAssertTrue(waitUntilGone(pid), "worker \(pid) is gone before the next renders") }
        let others = names.filter({ $0.hasSuffix(".jpg") && $0 != "IMG_1234.jpg" }).prefix(6)
        XCTAssertEqual(others.count, 6, "six more thumbnails to render: \(names)")
        for name in others {
            XCTAssertEqual(try readFile(m.path("thumbnails/200x200/" + name)).get().count, 30_000, name)
        }
        XCTAssertEqual(daemonStatus(m.mountpoint)["render_worker_restarts"], "0")
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnail_failures"], "0")
        m.finish()
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
            // (Root's workers run as a user of their own, which no account or other process has.)
            XCTAssertTrue(lines.first?.hasPrefix(who == "root" ? "uid 2147459519 euid 2147459519 gid 2147459519" : "uid 1234 euid 1234 gid 1234") == true,
                          "\(who): \(lines)")
            for tried in ["open /etc/passwd", "openat /etc/hostname", "socket AF_INET", "socket AF_UNIX", "kill the parent", "fork"] {
                XCTAssertTrue(lines.contains("\(tried): refused (Operation not permitted)"), "\(who), \(tried): \(lines)")
            }
            // (256 MB a render may take in the check, the threads' room, and 64 MB more.)
            XCTAssertTrue(lines.contains("allocate 576 MB: refused"), "\(who): \(lines)")
        }
    }

    /// A PNG that takes seconds of CPU to decode (900 MP of black, 2.6 MB) over
    /// `-o thumbnail_timeout=1`: its worker is ended by its CPU limit (SIGXCPU), the thumbnail
    /// answers EIO within seconds and says why, and the next render runs in a new worker.
    func testARenderOverItsCPUTimeIsStoppedAndTheMountGoesOn() throws {
        let folder = makeTempFolder("cpu")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let png = blackPNG(width: 30_000, height: 30_000)
        XCTAssertLessThan(png.count, 4 << 20)
        try SampleLibrary.writeFile(folder + "/huge.png", png, mtime: SampleLibrary.defaultMtime)
        try SampleLibrary.writeFile(folder + "/small.jpg", try SampleJPEG.jpeg(.marker(width: 320, height: 240)), mtime: SampleLibrary.defaultMtime)
        let m = try Mount(source: folder, options: ["-o", "thumbnail_max_pixels=1000000000,thumbnail_timeout=1,thumbnail_ahead=0"])
        let started = Date()
        XCTAssertEqual(readFile(m.path("thumbnails/200x200/huge.jpg")).failure?.code, EIO)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        let errors = (try? String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8)) ?? ""
        // (Its CPU limit ends it, or, on a machine too busy to give it a core, the wall clock's.)
        XCTAssertTrue(["huge.png: cannot make a thumbnail: the render worker ended during the decode "
                       + "(killed by signal \(SIGXCPU) (SIGXCPU: over its CPU time))\n",
                       "huge.png: cannot make a thumbnail: the decoder took over 3 s (-o thumbnail_timeout) and was stopped\n"].contains(errors),
                      errors)
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/small.jpg")).get().count, 30_000)
        XCTAssertEqual(daemonStatus(m.mountpoint)["render_worker_restarts"], "1")
        m.finish(allowing: ["cannot make a thumbnail of huge.png"])
    }

    /// A render that takes longer than `-o source_timeout` is not the storage stalling: while
    /// it runs, the library stays `available` and originals read at once; then it succeeds.
    func testASlowRenderIsNotAStalledLibrary() throws {
        let folder = makeTempFolder("slow-render")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try SampleLibrary.writeFile(folder + "/big.png", blackPNG(width: 20_000, height: 20_000), mtime: SampleLibrary.defaultMtime)
        let small = try SampleJPEG.jpeg(.marker(width: 320, height: 240))
        try SampleLibrary.writeFile(folder + "/small.jpg", small, mtime: SampleLibrary.defaultMtime)
        let m = try Mount(source: folder, options: ["-o", "source_timeout=1,thumbnail_max_pixels=1000000000,thumbnail_timeout=120"])
        let done = DispatchSemaphore(value: 0)
        let thumbnail = Locked<Result<[UInt8], Errno>?>(nil)
        let bigThumb = m.path("thumbnails/200x200/big.jpg")
        let started = Date()
        Thread.detachNewThread {
            let read = readFile(bigThumb)
            thumbnail.withLock { $0 = read }
            done.signal()
        }
        usleep(1_500_000)
        XCTAssertNil(thumbnail.withLock { $0 }, "the render outlasts source_timeout")
        XCTAssertEqual(daemonStatus(m.mountpoint)["library_state"], "available")
        let t = Date()
        XCTAssertEqual(try readFile(m.path("non-screenshots/small.jpg")).get(), small)
        XCTAssertLessThan(Date().timeIntervalSince(t), 1)
        XCTAssertEqual(done.wait(timeout: .now() + 240), .success)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 1.5)
        XCTAssertEqual(try XCTUnwrap(thumbnail.withLock { $0 }).get().count, 30_000)
        XCTAssertEqual(daemonStatus(m.mountpoint)["library_state"], "available")
        m.finish()
    }

    /// Under `allow_other`, `.albumfs/status`, `errors` and `not-shown` (which name the library's files) are
    /// the mounting user's: shown 0400, EACCES to another user's open (with or without
    /// `default_permissions`), read by root.
    func testTheStateUnderDotAlbumfsIsTheMountingUsersOnly() throws {
        let source = try SampleSource()
        defer { source.remove() }
        for options in ["allow_other", "allow_other,default_permissions"] {
            let m = try Mount(source: source.path, options: ["-o", options])
            for name in ["status", "errors", "not-shown"] {
                let path = m.path(".albumfs/" + name)
                XCTAssertEqual(try XCTUnwrap(statOf(path)).st_mode & 0o777, 0o400, name)
                let other = runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/cat", path], timeout: 20)
                XCTAssertNotEqual(other.status, 0, "\(options): \(name)")
                XCTAssertTrue(other.stderr.contains("Permission denied"), other.stderr)
                XCTAssertEqual(other.stdout, "")
                XCTAssertFalse(try readFile(path).get().isEmpty, "\(options): root reads \(name)")
            }
            m.finish()
        }
    }

    /// Another user holds at most an eighth of the daemon's descriptors in open originals (here
    /// 1,024: 128): past that their opens answer EMFILE, while the mounting user's opens and
    /// thumbnails go on; once theirs are closed they open again.
    func testAnotherUserHoldsAtMostTheirShareOfDescriptors() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let m = try Mount(source: source.path, options: ["-o", "allow_other"], launcher: ["/usr/bin/prlimit", "--nofile=1024:1024"])
        let photo = m.path("non-screenshots/IMG_1234.JPG")
        let hold = """
            import errno, os, sys
            held = []
            try:
                while len(held) < 1000:
                    held.append(os.open(sys.argv[1], os.O_RDONLY))
            except OSError as e:
                print(len(held), errno.errorcode[e.errno])
            sys.stdout.flush()
            sys.stdin.readline()
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", hold, photo]
        let output = Pipe(), input = Pipe()
        p.standardOutput = output
        p.standardInput = input
        try p.run()
        var line = ""
        while !line.hasSuffix("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertEqual(line, "128 EMFILE\n")
        XCTAssertEqual(try readFile(photo).get().count, try XCTUnwrap(statOf(photo)).st_size, "the mounting user's open")
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get().count, 30_000)
        try input.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
        p.waitUntilExit()
        let again = runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c", "cat \"$0\" | wc -c", photo],
                               timeout: 20)
        XCTAssertEqual(Int(again.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), Int(try XCTUnwrap(statOf(photo)).st_size))
        m.finish()
    }

    /// A `cache_dir` reached through a link another user owns (and could point elsewhere later)
    /// is refused at mount, with one line, and thumbnails are made in memory; one through the
    /// mounting user's own link is used, held open: the link pointed elsewhere afterwards
    /// changes nothing (no planted thumbnail is served, none is written there).
    func testACacheFolderIsCheckedThroughItsLinksAndHeldOpen() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let base = makeTempFolder("cache-links")
        defer { try? FileManager.default.removeItem(atPath: base) }
        XCTAssertEqual(chmod(base, 0o755), 0)
        try FileManager.default.createDirectory(atPath: base + "/real", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/planted", withIntermediateDirectories: true)
        XCTAssertEqual(symlink(base + "/real", base + "/theirs"), 0)
        XCTAssertEqual(lchown(base + "/theirs", 65534, 65534), 0)
        let refused = try Mount(source: source.path, options: ["-o", "cache_dir=\(base)/theirs/thumbs"])
        XCTAssertEqual(try readFile(refused.path("thumbnails/200x200/IMG_1234.jpg")).get().count, 30_000)
        XCTAssertTrue(refused.stderr.contains("\(base)/theirs is not private (a symbolic link owned by uid 65534): not used"), refused.stderr)
        refused.finish(allowing: ["is not private"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: base + "/real"), [], "nothing written through their link")

        XCTAssertEqual(symlink(base + "/real", base + "/mine"), 0)
        let m = try Mount(source: source.path, options: ["-o", "cache_dir=\(base)/mine/thumbs", "-o", "thumbnail_ahead=0"])
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/IMG_1234.jpg")).get().count, 30_000)
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnail_cache_bytes"], "30000")
        XCTAssertEqual(unlink(base + "/mine"), 0)
        XCTAssertEqual(symlink(base + "/planted", base + "/mine"), 0)
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/IMG_0001.jpg")).get().count, 30_000)
        XCTAssertEqual(daemonStatus(m.mountpoint)["thumbnail_cache_bytes"], "60000")
        m.finish()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: base + "/planted"), [], "the folder held open, not the link's new target")
        let cached = try FileManager.default.subpathsOfDirectory(atPath: base + "/real/thumbs").filter { $0.hasSuffix(".jpg") }
        XCTAssertEqual(cached.count, 2)
    }

    /// Files whose headers understate what their decoder makes (a video track that says 16x16
    /// over 1280x720 frames; a HEIC whose `ispe` says 64x64 over a 1280x960 image): the render's
    /// memory was estimated from the header, so what the decoder makes is checked against it
    /// (FFmpeg refuses a frame over what the memory allows, before allocating it; a frame or
    /// image larger than its header says is refused), and the thumbnail answers EIO saying so.
    func testFilesThatUnderstateTheirSizeAreRefused() throws {
        let folder = makeTempFolder("understated")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var movie = try SampleVideo.video(.marker(width: 1280, height: 720), frames: 1)
        let entry = try XCTUnwrap(Self.find(Array("avc1".utf8), in: movie, from: 0), "an avc1 sample entry") - 4
        XCTAssertEqual(Array(movie[(entry + 32)..<(entry + 36)]), [0x05, 0x00, 0x02, 0xD0], "1280x720 at its width and height")
        movie.replaceSubrange((entry + 32)..<(entry + 36), with: [0, 16, 0, 16])
        try SampleLibrary.writeFile(folder + "/clip.mov", movie, mtime: SampleLibrary.defaultMtime)
        var heic = try SampleHEIF.heif(.marker(width: 1280, height: 960))
        let ispe = try XCTUnwrap(Self.find(Array("ispe".utf8), in: heic, from: 0), "an ispe box")
        XCTAssertEqual(Array(heic[(ispe + 8)..<(ispe + 16)]), [0, 0, 5, 0, 0, 0, 3, 0xC0])
        heic.replaceSubrange((ispe + 8)..<(ispe + 16), with: [0, 0, 0, 64, 0, 0, 0, 64])
        try SampleLibrary.writeFile(folder + "/photo.heic", heic, mtime: SampleLibrary.defaultMtime + 1)
        try SampleLibrary.writeFile(folder + "/plain.jpg", try SampleJPEG.jpeg(.marker(width: 320, height: 240)), mtime: SampleLibrary.defaultMtime + 2)
        let m = try Mount(source: folder, options: ["-o", "thumbnail_memory=16M,thumbnail_ahead=0"])
        XCTAssertEqual(readFile(m.path("thumbnails/200x200/clip.jpg")).failure?.code, EIO)
        XCTAssertEqual(readFile(m.path("thumbnails/200x200/photo.jpg")).failure?.code, EIO)
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/plain.jpg")).get().count, 30_000)
        let errors = ((try? String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        XCTAssertEqual(errors.count, 2, "\(errors)")
        let clip = try XCTUnwrap(errors.first { $0.hasPrefix("clip.mov: ") })
        XCTAssertTrue(clip.hasSuffix("video: no keyframe could be decoded in its first 1 packets")
                      || clip.hasSuffix("video: its frames are 1280x720, larger than the 16x16 its track says"), clip)
        let photo = try XCTUnwrap(errors.first { $0.hasPrefix("photo.heic: ") })
        XCTAssertEqual(photo, "photo.heic: cannot make a thumbnail: HEIF: its image decodes to 1280x960, larger than the 64x64 its header says")
        m.finish(allowing: ["cannot make a thumbnail of clip.mov", "cannot make a thumbnail of photo.heic"])
    }

    /// A file's times can be any 64-bit value (a share from another system, a hostile file): one
    /// dated 2400 and one before 1970 with nanoseconds are shown at the times the index holds, the
    /// scan, the index, the duplicates' hashes and the views snapshot keep them, and a remount
    /// lists from the snapshot and reads neither again.
    func testFilesDatedPastWhatTheIndexHoldsAreShownAndKeptAcrossARemount() throws {
        let folder = makeTempFolder("far-times")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let far = try SampleJPEG.jpeg(.marker(width: 320, height: 240))
        try SampleLibrary.writeFile(folder + "/far.jpg", far, mtime: 13_569_465_600)
        try SampleLibrary.writeFile(folder + "/far-copy.jpg", far, mtime: SampleLibrary.defaultMtime)
        try SampleLibrary.writeFile(folder + "/old.jpg", try SampleJPEG.jpeg(.marker(width: 240, height: 320)), mtime: 0)
        var old = [timespec(tv_sec: -1_000_000_000, tv_nsec: 500_000_000), timespec(tv_sec: -1_000_000_000, tv_nsec: 500_000_000)]
        XCTAssertEqual(utimensat(AT_FDCWD, folder + "/old.jpg", &old, 0), 0)
        XCTAssertEqual(try XCTUnwrap(statOf(folder + "/far.jpg")).st_mtim.tv_sec, 13_569_465_600, "the folder's filesystem keeps the year 2400")
        XCTAssertEqual(try XCTUnwrap(statOf(folder + "/old.jpg")).st_mtim.tv_nsec, 500_000_000)
        let names = ["far-copy.jpg", "far.jpg", "old.jpg"]
        var m = try Mount(source: folder)
        XCTAssertEqual(readdirNames(m.path("non-screenshots"))?.sorted(), names)
        XCTAssertEqual(try XCTUnwrap(statOf(m.path("non-screenshots/far.jpg"))).st_mtim.tv_sec, Int(Timestamp.maxSeconds), "2262, as far as the index counts")
        XCTAssertEqual(try XCTUnwrap(statOf(m.path("non-screenshots/old.jpg"))).st_mtim.tv_sec, -1_000_000_000)
        XCTAssertEqual(readdirNames(m.path("by-date"))?.first, "2262")
        XCTAssertEqual(readdirNames(m.path("duplicates/far.jpg"))?.sorted(), ["far-copy.jpg", "far.jpg"])
        XCTAssertTrue(eventually { daemonStatus(m.mountpoint)["index_pending"] == "0" }, "the index holds every row")
        m.finish()
        m = try Mount(source: folder)
        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["first_tree"]?.hasPrefix("views snapshot"), true, "\(status)")
        XCTAssertEqual(status["header_reads"], "0", "\(status)")
        XCTAssertEqual(status["duplicate_files_hashed"], "0", "\(status)")
        XCTAssertEqual(readdirNames(m.path("non-screenshots"))?.sorted(), names)
        XCTAssertEqual(try readFile(m.path("non-screenshots/far.jpg")).get(), far)
        m.finish()
    }

    /// A small MOV whose sample size table claims 89 million samples of a constant size:
    /// FFmpeg's mov demuxer allocates a 2 GB index from that count inside
    /// `avformat_open_input`; in a worker no single allocation may pass `-o thumbnail_memory`,
    /// so it gets none, and keeps no index (no packet is read: with its index, its one real
    /// frame would render). EIO, said; the mount and the next thumbnail unharmed.
    func testAMovieClaimingMillionsOfSamplesIsRefusedWithoutTheMemory() throws {
        let folder = makeTempFolder("index-bomb")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var movie = try SampleVideo.video(.marker(width: 64, height: 64), frames: 1)
        let stsz = try XCTUnwrap(Self.find(Array("stsz".utf8), in: movie, from: 0), "a sample size box")
        // (version and flags, then the constant size and the count.)
        movie.replaceSubrange((stsz + 8)..<(stsz + 16), with: [0, 0, 0, 100] + bigEndian(89_000_000))
        XCTAssertLessThan(movie.count, 8 << 10)
        try SampleLibrary.writeFile(folder + "/bomb.mov", movie, mtime: SampleLibrary.defaultMtime)
        try SampleLibrary.writeFile(folder + "/plain.jpg", try SampleJPEG.jpeg(.marker(width: 320, height: 240)), mtime: SampleLibrary.defaultMtime + 1)
        let m = try Mount(source: folder, options: ["-o", "thumbnail_memory=256M,thumbnail_ahead=0"])
        let started = Date()
        XCTAssertEqual(readFile(m.path("thumbnails/200x200/bomb.jpg")).failure?.code, EIO)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        let errors = (try? String(contentsOfFile: m.path(".albumfs/errors"), encoding: .utf8)) ?? ""
        XCTAssertEqual(errors, "bomb.mov: cannot make a thumbnail: video: no keyframe could be decoded in its first 0 packets\n")
        XCTAssertEqual(try readFile(m.path("thumbnails/200x200/plain.jpg")).get().count, 30_000)
        m.finish(allowing: ["cannot make a thumbnail of bomb.mov"])
    }

    /// A 2x2 grid HEIC (tiles of 64) whose third tile item's `infe` box is renamed `free`: the
    /// item is in the grid's references and the item locations, with no item information.
    static func gridHEICWithATileWithoutItsInfo() throws -> [UInt8] {
        var heic = try SampleHEIF.heif(.marker(width: 128, height: 128), layout: .init(tile: 64))
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

/// The daemon's render workers that run, from /proc: its children whose command is
/// `albumfs render-worker` (not `fusermount3`, which `auto_unmount` starts), not yet reaped.
func workerPIDs(of daemon: Int32) -> [Int32] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon)/task")) ?? []
    return tasks.flatMap { task in
        ((try? String(contentsOfFile: "/proc/\(daemon)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int32($0) }
    }.filter { pid in
        let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
        // (The thumbnail workers: `albumfs render-worker …`; the similar photos' hash worker is
        // `albumfs-similar render-worker …`.)
        let words = command.split(separator: 0).prefix(2).map { String(decoding: $0, as: UTF8.self) }
        let isWorker = words == ["albumfs", "render-worker"]
        // (A child killed and not yet reaped is a zombie: state Z.)
        let state = ((try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? "").split(separator: ")").last?.split(separator: " ").first
        return isWorker && state != "Z"
    }
}

/// A PNG of `width` x `height` black pixels, made without holding its pixels: its one `IDAT` is
/// zeros deflated a megabyte at a time (a few MB for a 900 MP image, seconds of CPU to decode).
func blackPNG(width: Int, height: Int) -> [UInt8] {
    var stream = z_stream()
    XCTAssertEqual(deflateInit_(&stream, Z_BEST_COMPRESSION, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)), Z_OK)
    defer { deflateEnd(&stream) }
    let zeros = [UInt8](repeating: 0, count: 1 << 20)
    var compressed: [UInt8] = []
    var output = [UInt8](repeating: 0, count: 1 << 16)
    var left = height * (1 + width * 3)  // (a filter byte, 0, before each row)
    repeat {
        let chunk = min(left, zeros.count)
        left -= chunk
        zeros.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(chunk)
            repeat {
                output.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    _ = deflate(&stream, left == 0 ? Z_FINISH : Z_NO_FLUSH)
                    compressed.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
                }
            } while stream.avail_out == 0
        }
    } while left > 0
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc)
    }
    let header = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", compressed) + chunk("IEND", [])
}

func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
