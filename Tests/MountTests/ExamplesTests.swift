import AlbumSample
import CSysXattr
import Foundation
import Glibc
import XCTest

/// The scripts in mount-examples/ run against a real mount and do what they say.
final class ExamplesTests: XCTestCase {
    static let examples: String = {
        // Tests/MountTests/ExamplesTests.swift → the repository root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("mount-examples").path
    }()

    func testCopyNewestCopiesTheNewestNonScreenshots() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        let dest = makeTempFolder("dest")
        defer { try? FileManager.default.removeItem(atPath: dest) }
        let r = shell("'\(Self.examples)/copy-newest.sh' '\(mount.mountpoint)' '\(dest)' 4")
        XCTAssertEqual(r.status, 0, r.stderr)
        let newest = Array(try XCTUnwrap(readdirNames(mount.path("non-screenshots"))).prefix(4))
        XCTAssertEqual(newest.count, 4, "the view holds the four to copy")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: dest)), Set(newest))
        for name in newest {
            XCTAssertEqual(FileManager.default.contents(atPath: dest + "/" + name), FileManager.default.contents(atPath: mount.path("non-screenshots/" + name)))
            XCTAssertEqual(statOf(dest + "/" + name)?.st_mtim.tv_sec, statOf(mount.path("non-screenshots/" + name))?.st_mtim.tv_sec)
        }
        mount.finish()
    }

    /// Photos copied into SOURCE are in the views as soon as the script returns (no polling of
    /// the listing).
    func testWaitForChangesReturnsOnceTheViewsShowSource() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        let photo = try XCTUnwrap(FileManager.default.contents(atPath: source.path + "/Sony/DSC01234.JPG"))
        let names = (1...20).map { "NEW_\($0).JPG" }
        for name in names {
            XCTAssertTrue(FileManager.default.createFile(atPath: source.path + "/Trip/" + name, contents: photo))
        }
        let r = shell("'\(Self.examples)/wait-for-changes.sh' '\(mount.mountpoint)' 10")
        XCTAssertEqual(r.status, 0, r.stderr)
        let day = Set(readdirNames(mount.path("by-date/2021/2021-12/2021-12-31")) ?? [])
        XCTAssertTrue(Set(names).isSubset(of: day), "\(day)")
        mount.finish()
    }

    func testScreenshotsPerMonthCountsWhatTheSampleHolds() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        let r = shell("'\(Self.examples)/screenshots-per-month.sh' '\(mount.mountpoint)'")
        XCTAssertEqual(r.status, 0, r.stderr)
        var expected: [String: Int] = [:]
        for item in source.items where item.expectedScreenshot && !item.expectedVideo { expected[String(item.expectedDay!.prefix(7)), default: 0] += 1 }
        let lines = expected.keys.sorted(by: >).map { "\(expected[$0]!) \($0)" }
        XCTAssertEqual(r.stdout.split(separator: "\n").map(String.init), lines)
        mount.finish()
    }

    func testPickCopyAndClearScripts() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        XCTAssertEqual(shell("'\(Self.examples)/pick-newest.sh' '\(mount.mountpoint)' 3").status, 0)
        let newest = Array(try XCTUnwrap(readdirNames(mount.path("non-screenshots"))).prefix(3))
        XCTAssertEqual(newest.count, 3, "the view holds the three to pick")
        XCTAssertEqual(readdirNames(mount.path("picked")), newest)
        let dest = makeTempFolder("picks-out")
        defer { try? FileManager.default.removeItem(atPath: dest) }
        XCTAssertEqual(shell("'\(Self.examples)/copy-picks.sh' '\(mount.mountpoint)' '\(dest)'").status, 0)
        for name in newest {
            XCTAssertEqual(FileManager.default.contents(atPath: dest + "/" + name), FileManager.default.contents(atPath: mount.path("non-screenshots/" + name)))
            var st = stat()
            XCTAssertEqual(lstat(dest + "/" + name, &st), 0)
            XCTAssertEqual(st.st_mode & S_IFMT, S_IFREG, "copies are files, not links")
        }
        XCTAssertEqual(shell("'\(Self.examples)/clear-picks.sh' '\(mount.mountpoint)'").status, 0)
        XCTAssertEqual(readdirNames(mount.path("picked")), [])
        mount.finish()
    }

    func testBackUpCopiesOriginalsByDateAndASecondRunCopiesNothing() throws {
        let source = try SampleSource()
        defer { source.remove() }
        let mount = try Mount(source: source.path)
        let dest = makeTempFolder("backup")
        defer { try? FileManager.default.removeItem(atPath: dest) }
        XCTAssertEqual(shell("'\(Self.examples)/back-up.sh' '\(mount.mountpoint)' '\(dest)'").status, 0)
        let day = "2024/2024-05/2024-05-17/PXL_20240517_120304567.jpg"
        XCTAssertEqual(FileManager.default.contents(atPath: dest + "/" + day),
                       FileManager.default.contents(atPath: source.path + "/DCIM/Camera/PXL_20240517_120304567.jpg"))
        XCTAssertEqual(statOf(dest + "/" + day)?.st_mtim.tv_sec, statOf(mount.path("by-date/" + day))?.st_mtim.tv_sec)
        let again = shell("rsync -a --delete --itemize-changes '\(mount.path("by-date"))/' '\(dest)/'")
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(again.stdout, "", "nothing changed, nothing copied")
        mount.finish()
    }

    func testFstabLineMountsThroughMountFuse3() throws {
        // mount.fuse3 runs `albumfs SOURCE MOUNTPOINT -o OPTIONS` with fstab's options, noise included.
        let source = try SampleSource()
        defer { source.remove() }
        let mnt = makeTempFolder("fstab")
        defer { rmdir(mnt) }
        let bin = URL(fileURLWithPath: albumfsBinary()).deletingLastPathComponent().path
        // The example's first line, as written (its `user` is mount(8)'s, which mount.fuse3 is not given).
        let fstab = try String(contentsOfFile: Self.examples + "/fstab", encoding: .utf8)
        let line = try XCTUnwrap(fstab.split(separator: "\n").first { !$0.hasPrefix("#") }).split(separator: " ", omittingEmptySubsequences: true)
        XCTAssertEqual(line.count, 6)
        let options = line[3].split(separator: ",").filter { $0 != "user" }.joined(separator: ",")
        XCTAssertFalse(options.contains("allow_other"), "the example's default publishes nothing to other users")
        let r = runCommand("/sbin/mount.fuse3", ["albumfs#" + source.path, mnt, "-o", options],
                           environment: ["PATH": bin + ":/usr/bin:/bin:/usr/sbin:/sbin"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(readdirNames(mnt), ["by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types", "places", "duplicates", "filter", "thumbnails", "picked", ".albumfs"])
        XCTAssertTrue(readdirNames(mnt + "/non-screenshots")?.contains("IMG_1400.HEIC") ?? false)
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", mnt]).status, 0)
        // The JPEG-and-PNG line: no HEIC.
        let plain = runCommand("/sbin/mount.fuse3", ["albumfs#" + source.path, mnt, "-o", "noauto,user,nofail,heif=off"],
                               environment: ["PATH": bin + ":/usr/bin:/bin:/usr/sbin:/sbin"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertFalse(readdirNames(mnt + "/non-screenshots")?.contains("IMG_1400.HEIC") ?? true)
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", mnt]).status, 0)
    }

    /// `scripts/install PREFIX` puts the binary, the man page and the systemd user unit (its
    /// ExecStart at PREFIX/bin/albumfs) in place.
    func testInstallPutsTheBinaryManPageAndUserUnitInPlace() throws {
        let repo = URL(fileURLWithPath: Self.examples).deletingLastPathComponent().path
        let work = makeTempFolder("install")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let env = ["ALBUMFS_BIN": albumfsBinary(), "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"]
        let installed = runCommand("/bin/bash", [repo + "/scripts/install", work + "/prefix"], timeout: 120, environment: env)
        XCTAssertEqual(installed.status, 0, installed.stderr)
        XCTAssertEqual(installed.stdout, work + "/prefix/bin/albumfs\n")
        XCTAssertTrue(runCommand(work + "/prefix/bin/albumfs", ["--version"]).stdout.hasPrefix("albumfs "))
        XCTAssertEqual(runCommand("/usr/bin/man", ["-w", "-M", work + "/prefix/share/man", "albumfs"]).stdout,
                       work + "/prefix/share/man/man1/albumfs.1\n", "man finds the page")
        let unit = try String(contentsOfFile: work + "/prefix/lib/systemd/user/albumfs.service", encoding: .utf8)
        XCTAssertTrue(unit.contains("ExecStart=\(work)/prefix/bin/albumfs -f "), unit)
    }

    /// The README's console example, typed line by line into a shell in a fresh home, prints
    /// what the README shows (the home's path for /root, and times and today's date aside).
    func testTheReadmeConsoleExampleRunsLineByLineAsPrinted() throws {
        let repo = URL(fileURLWithPath: Self.examples).deletingLastPathComponent().path
        let readme = try String(contentsOfFile: repo + "/README.md", encoding: .utf8)
        let block = try XCTUnwrap(readme.components(separatedBy: "```console\n").dropFirst().first?.components(separatedBy: "\n```").first)
        var steps: [(command: String, output: [String])] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("$ ") { steps.append((String(line.dropFirst(2)), [])) } else if !steps.isEmpty { steps[steps.count - 1].output.append(String(line)) }
        }
        XCTAssertGreaterThan(steps.count, 10, block)
        let home = makeTempFolder("readme")
        defer {
            runCommand("/usr/bin/fusermount3", ["-u", "-z", home + "/Album"])
            try? FileManager.default.removeItem(atPath: home)
        }
        let bin = URL(fileURLWithPath: albumfsBinary()).deletingLastPathComponent().path
        let env = ["HOME": home, "PATH": bin + ":/usr/bin:/bin:/usr/sbin:/sbin", "TZ": "UTC",
                   "XDG_CACHE_HOME": home + "/.cache", "XDG_DATA_HOME": home + "/.local/share"]
        // Words compared, as a terminal lays `ls` out in columns; scan times and today's date vary.
        func words(_ text: String) -> [String] {
            text.replacing(/\d+\.\d+ s/, with: "T s").replacing(/[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d/, with: "DATE")
                .split(whereSeparator: \.isWhitespace).map(String.init)
        }
        for step in steps {
            let r = runCommand("/bin/bash", ["-c", step.command], timeout: 60, environment: env)
            XCTAssertEqual(r.status, 0, "\(step.command): \(r.stderr)")
            let expected = step.output.joined(separator: "\n").replacingOccurrences(of: "/root/", with: home + "/")
            XCTAssertEqual(words(r.stdout + r.stderr), words(expected), step.command)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: home + "/Album/by-date"), "the last line unmounts")
    }

    /// `scripts/mount-library --sample MOUNTPOINT` mounts the sample library at MOUNTPOINT (made
    /// if missing), saying each step as it goes; here with the binary given (ALBUMFS_BIN) and
    /// installed under a prefix of the test's own.
    func testMountLibraryMountsTheSampleWhereItIsToldAndSaysEachStep() throws {
        let repo = URL(fileURLWithPath: Self.examples).deletingLastPathComponent().path
        let work = makeTempFolder("mount-library")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let album = work + "/home/Album"
        var env = ["ALBUMFS_BIN": albumfsBinary(), "PREFIX": work + "/prefix", "HOME": work + "/home",
                   "XDG_DATA_HOME": work + "/data", "XDG_CACHE_HOME": work + "/cache"]
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"]
        let r = runCommand("/bin/bash", [repo + "/scripts/mount-library", "--sample", album], timeout: 300, environment: env)
        defer { runCommand("/usr/bin/fusermount3", ["-u", "-z", album]) }
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        for said in ["mount-library: 1/4 the Debian packages", "mount-library: 2/4 installing " + albumfsBinary(),
                     "mount-library: 3/4 writing a sample library to \(work)/data/albumfs/sample-library",
                     "mount-library: 4/4 mounting at \(album) ", "is mounted at \(album) (all in "] {
            XCTAssertTrue(r.stdout.contains(said), "\(said) in \(r.stdout)")
        }
        XCTAssertEqual(readdirNames(album), ["by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types", "places", "duplicates", "filter", "thumbnails", "picked", ".albumfs"])
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: work + "/prefix/bin/albumfs"))
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", album]).status, 0)
        let usage = runCommand("/bin/bash", [repo + "/scripts/mount-library", "--bogus"], environment: env)
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.stderr.contains("--sample [MOUNTPOINT"), usage.stderr)
    }

    /// `scripts/package-deb` builds a package of the release binary that lintian passes (no
    /// error), whose data root is 0755, whose user unit starts /usr/bin/albumfs, with the
    /// copyright notices and the dependencies' floors from the libraries' symbols. dpkg installs
    /// it into a root of the test's own; its albumfs, started as the user unit starts it, tells
    /// systemd READY=1 once the mount answers, stops with the unit's ExecStop, and dpkg removes
    /// the package without a trace. (The release binary: `$ALBUMFS_RELEASE_BIN`, which
    /// scripts/test sets, else `$ALBUMFS_BIN`; package-deb refuses a debug build.)
    func testTheDebianPackagePassesLintianInstallsAndStartsAsTheUserUnit() throws {
        let repo = URL(fileURLWithPath: Self.examples).deletingLastPathComponent().path
        let work = makeTempFolder("deb")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let release = ProcessInfo.processInfo.environment["ALBUMFS_RELEASE_BIN"].flatMap { $0.isEmpty ? nil : $0 } ?? albumfsBinary()
        let env = ["ALBUMFS_BIN": release, "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"]
        let built = runCommand("/bin/bash", [repo + "/scripts/package-deb", work + "/out"], timeout: 300, environment: env)
        XCTAssertEqual(built.status, 0, built.stderr)
        XCTAssertTrue(built.stderr.contains("] compressing the package"), "it says what it does: \(built.stderr)")
        let deb = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(deb.hasSuffix(".deb"), deb)
        guard built.status == 0 else { return }  // vacuous-ok: the failure is asserted above; what follows needs the package

        let lint = runCommand("/usr/bin/lintian", ["--fail-on", "error", deb], timeout: 600, environment: env)
        XCTAssertEqual(lint.status, 0, lint.stdout + lint.stderr)
        XCTAssertFalse(lint.stdout.split(separator: "\n").contains { $0.hasPrefix("E: ") }, lint.stdout)

        let depends = runCommand("/usr/bin/dpkg-deb", ["-f", deb, "Depends"]).stdout
        for package in ["fuse3", "libfuse3-3", "libexif12", "libsqlite3-0", "libturbojpeg0", "libpng16-16", "libheif1 (>= 1.19)", "libjxl0", "libraw20", "libgeonames0"] {
            XCTAssertTrue(depends.contains(package), "\(package) in \(depends)")
        }
        // Floors from the symbols the binary uses, not this machine's patch level.
        let libc = try XCTUnwrap(depends.firstMatch(of: /libc6 \(>= ([^)]+)\)/)?.1, depends)
        let installedLibc = runCommand("/usr/bin/dpkg-query", ["-W", "-f=${Version}", "libc6"]).stdout
        XCTAssertEqual(runCommand("/usr/bin/dpkg", ["--compare-versions", String(libc), "lt", installedLibc]).status, 0,
                       "libc6 floor \(libc) below the installed \(installedLibc)")

        // Unpacked into an empty folder, the package's root is 0755 as / is.
        let unpacked = work + "/unpacked"
        XCTAssertEqual(mkdir(unpacked, 0o700), 0)
        XCTAssertEqual(runCommand("/usr/bin/dpkg-deb", ["-x", deb, unpacked]).status, 0)
        XCTAssertEqual((statOf(unpacked)?.st_mode ?? 0) & 0o7777, 0o755)

        // A dpkg database of the test's own: install, check, run, remove.
        let root = work + "/root"
        XCTAssertEqual(shell("mkdir -p '\(root)/var/lib/dpkg/info' '\(root)/var/lib/dpkg/updates' && touch '\(root)/var/lib/dpkg/status'").status, 0)
        let install = runCommand("/usr/bin/dpkg", ["--root=" + root, "--force-depends", "--force-not-root", "--log=/dev/null", "-i", deb],
                                 timeout: 120, environment: env)
        XCTAssertEqual(install.status, 0, install.stderr)
        let verify = runCommand("/usr/bin/dpkg", ["--root=" + root, "--verify", "albumfs"], environment: env)
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertEqual(verify.stdout, "", "every file as its md5sums say")
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/usr/share/man/man1/albumfs.1.gz"))
        let copyright = try String(contentsOfFile: root + "/usr/share/doc/albumfs/copyright", encoding: .utf8)
        XCTAssertTrue(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"))
        for notice in ["License: GPL-3+", "libfuse3-3", "libheif1", "libjxl", "FFmpeg", "Apache-2.0", "libgeonames0", "GeoNames"] {
            XCTAssertTrue(copyright.contains(notice), "\(notice) in the copyright file")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/usr/share/doc/albumfs/changelog.gz"))

        let unit = try String(contentsOfFile: root + "/usr/lib/systemd/user/albumfs.service", encoding: .utf8)
        func line(_ key: String) -> [String] {
            unit.split(separator: "\n").first { $0.hasPrefix(key + "=") }
                .map { $0.dropFirst(key.count + 1).split(separator: " ").map(String.init) } ?? []
        }
        XCTAssertEqual(line("Type"), ["notify"])
        let start = line("ExecStart"), before = line("ExecStartPre"), stop = line("ExecStop")
        XCTAssertEqual(start.first, "/usr/bin/albumfs", unit)
        XCTAssertFalse(before.isEmpty || stop.isEmpty, unit)
        guard start.first == "/usr/bin/albumfs", !before.isEmpty, !stop.isEmpty else { return }  // vacuous-ok: the failure is asserted above; what follows runs those lines

        // As systemd starts it: HOME set, %h expanded, NOTIFY_SOCKET a datagram socket it listens on.
        let home = work + "/home"
        XCTAssertEqual(mkdir(home, 0o755), 0)
        let expand = { (words: [String]) in words.map { $0.replacingOccurrences(of: "%h", with: home) } }
        let albumfs = root + "/usr/bin/albumfs"
        let sample = runCommand(albumfs, ["sample", home + "/Pictures"], timeout: 60)
        XCTAssertEqual(sample.status, 0, sample.stderr)
        let pre = expand(before)
        XCTAssertEqual(runCommand(pre[0], Array(pre.dropFirst())).status, 0)
        let notify = work + "/notify"
        let fd = try bindNotifySocket(notify)
        defer { close(fd) }
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: albumfs)
        daemon.arguments = Array(expand(start).dropFirst())
        daemon.environment = ["HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "NOTIFY_SOCKET": notify]
        let log = work + "/daemon.log"
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil))
        daemon.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        daemon.standardOutput = FileHandle.nullDevice
        try daemon.run()
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = recv(fd, &buffer, buffer.count, 0)
        XCTAssertGreaterThan(n, 0, "no READY=1 within 30 s: \(String(cString: strerror(errno)))")
        XCTAssertEqual(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self), "READY=1")
        let album = home + "/Album"
        XCTAssertEqual(readdirNames(album), ["by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types", "places", "duplicates", "filter", "thumbnails", "picked", ".albumfs"])
        XCTAssertTrue(eventually(20) { readdirNames(album + "/non-screenshots")?.contains("IMG_1400.HEIC") ?? false },
                      "the scan shows the sample's HEIC (libheif 1.19 loaded)")
        let off = expand(stop)
        XCTAssertEqual(runCommand(off[0], Array(off.dropFirst())).status, 0)
        XCTAssertTrue(waitForExit(daemon, timeout: 20), "the daemon ends once unmounted")
        XCTAssertEqual(daemon.terminationStatus, 0)
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertTrue(said.contains("albumfs: ready"), said)
        XCTAssertFalse(said.contains("error") || said.contains("warning"), said)

        let remove = runCommand("/usr/bin/dpkg", ["--root=" + root, "--log=/dev/null", "-r", "albumfs"], timeout: 120, environment: env)
        XCTAssertEqual(remove.status, 0, remove.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/usr"), "nothing left")
    }

    /// A datagram socket bound at `path`, as systemd listens on `$NOTIFY_SOCKET`, whose `recv`
    /// gives up after 30 s.
    private func bindNotifySocket(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError(message: "socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        guard bound == 0, setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            close(fd)
            throw HarnessError(message: "bind \(path): \(String(cString: strerror(errno)))")
        }
        return fd
    }
}
