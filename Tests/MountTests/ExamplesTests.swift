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
        let newest = Array(readdirNames(mount.path("non-screenshots"))!.prefix(4))
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
        let newest = Array(readdirNames(mount.path("non-screenshots"))!.prefix(3))
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
        XCTAssertEqual(readdirNames(mnt), ["by-date", "screenshots", "non-screenshots", "videos", "thumbnails", "picked", ".albumfs"])
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
    /// ExecStart at PREFIX/bin/albumfs) in place; `scripts/package-deb` builds a package of the
    /// same files that dpkg installs into a root of the test's own and removes without a trace.
    func testInstallAndTheDebianPackage() throws {
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
        let built = runCommand("/bin/bash", [repo + "/scripts/package-deb", work + "/out"], timeout: 120, environment: env)
        XCTAssertEqual(built.status, 0, built.stderr)
        let deb = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(deb.hasSuffix(".deb"), deb)
        let depends = runCommand("/usr/bin/dpkg-deb", ["-f", deb, "Depends"]).stdout
        for package in ["fuse3", "libfuse3-3", "libexif12", "libsqlite3-0", "libturbojpeg0", "libpng16-16"] {
            XCTAssertTrue(depends.contains(package), "\(package) in \(depends)")
        }
        // A dpkg database of the test's own: install, run, remove.
        let root = work + "/root"
        XCTAssertEqual(shell("mkdir -p '\(root)/var/lib/dpkg/info' '\(root)/var/lib/dpkg/updates' && touch '\(root)/var/lib/dpkg/status'").status, 0)
        let install = runCommand("/usr/bin/dpkg", ["--root=" + root, "--force-depends", "--force-not-root", "--log=/dev/null", "-i", deb],
                                 timeout: 120, environment: env)
        XCTAssertEqual(install.status, 0, install.stderr)
        XCTAssertTrue(runCommand(root + "/usr/bin/albumfs", ["--version"]).stdout.hasPrefix("albumfs "))
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/usr/share/man/man1/albumfs.1.gz"))
        let remove = runCommand("/usr/bin/dpkg", ["--root=" + root, "--log=/dev/null", "-r", "albumfs"], timeout: 120, environment: env)
        XCTAssertEqual(remove.status, 0, remove.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/usr"), "nothing left")
    }
}
