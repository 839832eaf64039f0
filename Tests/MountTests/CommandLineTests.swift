import AlbumSample
import CSysXattr
import Foundation
import Glibc
import XCTest

/// The command line is a contract (docs/cli.md): every error has its message and exit code,
/// leaves no mount behind, and success means the mount already answers.
final class CommandLineTests: SampleLibraryTestCase {
    var mountpoint: String!

    override func setUpWithError() throws {
        try super.setUpWithError()
        mountpoint = makeTempFolder("cli")
    }

    override func tearDown() {
        if isMounted(mountpoint) { runCommand("/usr/bin/fusermount3", ["-u", mountpoint]) }
        rmdir(mountpoint)
        super.tearDown()
    }

    func albumfs(_ args: [String], environment: [String: String]? = nil) -> CommandResult {
        runCommand(albumfsBinary(), args, environment: environment)
    }

    func expectError(_ args: [String], code: Int32, message: String, file: StaticString = #filePath, line: UInt = #line) {
        let r = albumfs(args)
        XCTAssertEqual(r.status, code, "exit code of albumfs \(args); stderr: \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains(message), "stderr: \(r.stderr)", file: file, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line: \(r.stderr)", file: file, line: line)
        XCTAssertFalse(isMounted(mountpoint), file: file, line: line)
    }

    func testHelpAndVersion() throws {
        let help = albumfs(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("usage: albumfs [options] SOURCE MOUNTPOINT"))
        XCTAssertTrue(help.stdout.contains("exit codes"))
        XCTAssertFalse(help.stdout.contains("docs/"), "points to nothing a package installs")
        // Every folder a mount's root shows.
        let m = try Mount(source: source.path)
        let views = try XCTUnwrap(readdirNames(m.mountpoint))
        m.finish()
        XCTAssertTrue(views.contains("videos"), "\(views)")
        for view in views {
            XCTAssertTrue(help.stdout.contains("\n  " + view + "/"), "\(view)/ in --help")
        }
        let version = albumfs(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.hasPrefix("albumfs "))
    }

    /// The man page (installed without the docs it came beside) names every view, every option
    /// `--help` lists, every exit code, and points to no file of the source tree.
    func testTheManPageIsCompleteInItself() throws {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let page = try String(contentsOfFile: repo + "/docs/albumfs.1", encoding: .utf8)
        let rendered = runCommand("/usr/bin/man", ["--warnings", "-l", "-Tutf8", "-Z", repo + "/docs/albumfs.1"], environment: ["MANWIDTH": "80", "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        XCTAssertEqual(rendered.stderr, "", "groff has no warning")
        XCTAssertFalse(page.contains("docs/"), "no pointer to the source tree")
        let help = albumfs(["--help"]).stdout
        let block = try XCTUnwrap(help.components(separatedBy: "-o opt[,opt...]").dropFirst().first?.components(separatedBy: "-h, --help").first)
        var options = Set<String>()
        for line in block.split(separator: "\n") where line.hasPrefix("     ") && !line.hasPrefix("      ") {
            // The option column: up to the two spaces before its meaning.
            let column = String(line.drop { $0 == " " }).components(separatedBy: "  ")[0]
            for match in column.matches(of: /(?:^|, )([a-z_]+)/) { options.insert(String(match.1)) }
        }
        XCTAssertGreaterThan(options.count, 30, "\(options)")
        for option in options.sorted() {
            XCTAssertTrue(page.contains(option), "-o \(option) in the man page")
        }
        let entries = page.split(separator: "\n").filter { $0.hasPrefix(".B ") }
        for view in ["by-date/", "screenshots/", "non-screenshots/", "videos/", "thumbnails/200x200/", "picked/", ".albumfs/status", ".albumfs/errors"] {
            XCTAssertTrue(entries.contains { $0.contains(view) }, "\(view) has its entry")
        }
        for code in 0...5 {
            XCTAssertTrue(page.contains(".SH EXIT STATUS") && page.components(separatedBy: ".SH EXIT STATUS")[1].contains("\n.B \(code)\n"), "exit \(code)")
        }
    }

    /// `-o uid=,gid=,umask=`, as sshfs and rclone mount have them: every node's owner and mode.
    func testOwnerAndUmask() throws {
        let m = try Mount(source: source.path, options: ["-o", "uid=12345,gid=54321,umask=027"])
        func check(_ path: String, _ mode: mode_t, file: StaticString = #filePath, line: UInt = #line) {
            var st = stat()
            XCTAssertEqual(lstat(m.path(path), &st), 0, path, file: file, line: line)
            XCTAssertEqual(st.st_uid, 12345, path, file: file, line: line)
            XCTAssertEqual(st.st_gid, 54321, path, file: file, line: line)
            XCTAssertEqual(st.st_mode & 0o7777, mode, path, file: file, line: line)
        }
        check("", 0o550)
        check("by-date", 0o550)
        // (A photo shows its source file's bits, 0644 here, less the umask's.)
        check("non-screenshots/" + (readdirNames(m.path("non-screenshots"))?.first ?? "?"), 0o640)
        check("picked", 0o750)
        XCTAssertEqual(symlink("../screenshots/" + (readdirNames(m.path("screenshots"))?.first ?? "?"), m.path("picked/p.png")), 0)
        check("picked/p.png", 0o750)
        m.finish()
    }

    func testUsageErrors() {
        expectError([], code: 2, message: "need SOURCE and MOUNTPOINT")
        expectError([source.path], code: 2, message: "need SOURCE and MOUNTPOINT")
        expectError([source.path, mountpoint, "extra"], code: 2, message: "too many arguments: extra")
        expectError(["--frobnicate", source.path, mountpoint], code: 2, message: "unknown flag '--frobnicate'")
        expectError(["-o", "frobnicate", source.path, mountpoint], code: 2, message: "unknown option 'frobnicate' (see albumfs --help)")
        // A typo gets the nearest known word.
        expectError(["-o", "heiff=on", source.path, mountpoint], code: 2, message: "unknown option 'heiff'; did you mean 'heif'?")
        expectError(["-o", "cachesize=1G", source.path, mountpoint], code: 2, message: "did you mean 'cache_size'?")
        expectError(["-o", "alow_other", source.path, mountpoint], code: 2, message: "did you mean 'allow_other'?")
        expectError(["-o", "allow_other=yes", source.path, mountpoint], code: 2, message: "option 'allow_other' takes no value")
        expectError(["-o", "fsname", source.path, mountpoint], code: 2, message: "option 'fsname' needs a value")
        expectError(["-o", "max_read=lots", source.path, mountpoint], code: 2, message: "option 'max_read' takes a positive number")
        expectError(["-o", "io_uring=maybe", source.path, mountpoint], code: 2, message: "option 'io_uring' takes on or off")
        expectError(["-o", "heif=yes", source.path, mountpoint], code: 2, message: "option 'heif' takes on or off")
        expectError(["-o", "uid=me", source.path, mountpoint], code: 2, message: "option 'uid' takes a numeric id")
        expectError(["-o", "gid", source.path, mountpoint], code: 2, message: "option 'gid' takes a numeric id")
        expectError(["-o", "umask=999", source.path, mountpoint], code: 2, message: "option 'umask' takes octal permission bits")
        expectError(["-o", "rescan=0", source.path, mountpoint], code: 2, message: "option 'rescan' takes a number of seconds (at least 1)")
        expectError(["-o", "full_rescan=hourly", source.path, mountpoint], code: 2, message: "option 'full_rescan' takes a number of seconds (got 'hourly')")
        expectError(["-o", "full_rescan=-1", source.path, mountpoint], code: 2, message: "option 'full_rescan' takes a number of seconds")
        expectError(["-o", "full_rescann=60", source.path, mountpoint], code: 2, message: "did you mean 'full_rescan'?")
        expectError(["-o", "views=by-date,favourites", source.path, mountpoint], code: 2,
                    message: "option 'views': no view is called 'favourites' (views: by-date,screenshots,non-screenshots,videos,by-camera,favorites,media-types,places,duplicates,filter,thumbnails,picked)")
        expectError(["-o", "views=by-day", source.path, mountpoint], code: 2, message: "option 'views': no view is called 'by-day'")
        expectError(["-o", "views=", source.path, mountpoint], code: 2, message: "option 'views' needs a list")
        expectError([source.path, mountpoint, "-o"], code: 2, message: "-o needs a value")
        expectError(["sample"], code: 2, message: "albumfs sample: need a folder")
        expectError(["sample", "x", "--count", "0"], code: 2, message: "--count needs a number")
        expectError(["sample", "x", "--varied"], code: 2, message: "--varied goes with --count N")
    }

    /// `-o views=` shows only the views named, in the root's order whatever the list's; a photo
    /// reached through them is the one file it is in the full tree (its inode, its bytes), and
    /// picks work from a view other than `by-date/`.
    func testViewsOptionShowsOnlyTheViewsNamed() throws {
        let m = try Mount(source: source.path, options: ["-o", "views=by-camera,screenshots,picked"])
        defer { m.finish() }
        XCTAssertEqual(readdirNames(m.mountpoint), ["screenshots", "by-camera", "picked", ".albumfs"])
        for hidden in ["by-date", "non-screenshots", "videos", "favorites", "media-types", "duplicates", "filter", "thumbnails"] {
            XCTAssertNil(statOf(m.path(hidden)), "\(hidden) is not shown")
            XCTAssertEqual(errno, ENOENT)
        }
        let canon = "by-camera/Canon EOS 5D Mark IV"
        XCTAssertEqual(readdirNames(m.path(canon)), ["IMG_0002.JPG", "IMG_0001.JPG"])
        let shown = try XCTUnwrap(statOf(m.path(canon + "/IMG_0001.JPG")))
        XCTAssertEqual(FileManager.default.contents(atPath: m.path(canon + "/IMG_0001.JPG")),
                       FileManager.default.contents(atPath: source.path + "/DCIM/100CANON/IMG_0001.JPG"))
        XCTAssertEqual(shown.st_nlink, 1, "one view lists it")
        XCTAssertEqual(symlink("../" + canon + "/IMG_0001.JPG", m.path("picked/IMG_0001.JPG")), 0, "a pick from by-camera/: \(errno)")
        XCTAssertTrue(eventually { readdirNames(m.path("picked")) == ["IMG_0001.JPG"] })
        XCTAssertEqual(statOf(m.path("picked/IMG_0001.JPG"))?.st_ino, shown.st_ino, "the pick leads to the photo")

        // by-date alone: no picked/, no thumbnails/; the photos as in the full tree.
        let dated = try Mount(source: source.path, options: ["-o", "views=by-date"])
        defer { dated.finish() }
        XCTAssertEqual(readdirNames(dated.mountpoint), ["by-date", ".albumfs"])
        XCTAssertEqual(readdirNames(dated.path("by-date/2023/2023-07/2023-07-14")), ["IMG_0002.JPG", "IMG_0001.JPG", "IMG_0001~e008fe.JPG"])
        XCTAssertEqual(statOf(dated.path("by-date/2023/2023-07/2023-07-14/IMG_0002.JPG"))?.st_nlink, 1, "one view lists it")
    }

    /// `-o screenshot_names=` replaces the default list of screenshot name prefixes: a name only
    /// the default list knows no longer makes a screenshot, one the option names still does.
    func testScreenshotNamesReplaceTheDefaultList() throws {
        let m = try Mount(source: source.path, options: ["-o", "screenshot_names=Bildschirmfoto|Capture"])
        let shots = readdirNames(m.path("screenshots")) ?? []
        XCTAssertTrue(shots.contains("Bildschirmfoto vom 2022-03-01 um 10.00.00.png"), "\(shots)")
        XCTAssertTrue(shots.contains("Capture d\u{2019}écran 2021-11-03 à 16.20.05.png"), "\(shots)")
        XCTAssertTrue(readdirNames(m.path("non-screenshots"))?.contains("Screenshot 2023-01-05 at 12.34.56.png") ?? false)
        XCTAssertEqual(xattr(m.path("non-screenshots/Screenshot 2023-01-05 at 12.34.56.png"), "user.albumfs.screenshot")?.hasPrefix("no ("), true)
        m.finish()
    }

    /// `-o screenshot_folders` replaces the folder list: a photo whose only evidence is its folder
    /// is a screenshot in a folder of the new list and no longer in one of the default list.
    func testScreenshotFoldersReplaceTheDefaultList() throws {
        let byDefault = "Pictures/Screenshots/clip.png", byOption = "Captures/clip.png"
        try FileManager.default.createDirectory(atPath: source.path + "/Captures", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source.path + "/" + byDefault, toPath: source.path + "/" + byOption)
        let names: (Mount) -> (shots: [String], others: [String]) = { m in
            (readdirNames(m.path("screenshots")) ?? [], readdirNames(m.path("non-screenshots")) ?? [])
        }
        let sources: (Mount, String) -> [String] = { m, view in
            (readdirNames(m.path(view)) ?? []).compactMap { xattr(m.path(view + "/" + $0), "user.albumfs.source") }
        }
        do {
            let m = try Mount(source: source.path, options: ["-o", "index=\(state!)/default.sqlite"])
            XCTAssertFalse(names(m).shots.isEmpty, "the default list marks screenshots")
            XCTAssertTrue(sources(m, "screenshots").contains(source.path + "/" + byDefault), "the default folder marks it")
            XCTAssertTrue(sources(m, "non-screenshots").contains(source.path + "/" + byOption), "a folder not in the default list does not")
            m.finish()
        }
        let m = try Mount(source: source.path, options: ["-o", "screenshot_folders=Captures|Bildschirmfotos,index=\(state!)/option.sqlite"])
        let shots = sources(m, "screenshots"), others = sources(m, "non-screenshots")
        XCTAssertTrue(shots.contains(source.path + "/" + byOption), "the folder of the option marks it: \(shots)")
        XCTAssertTrue(others.contains(source.path + "/" + byDefault), "the default folder no longer does: \(others)")
        let shown = try XCTUnwrap(readdirNames(m.path("screenshots"))?.first { xattr(m.path("screenshots/" + $0), "user.albumfs.source") == source.path + "/" + byOption })
        let why = xattr(m.path("screenshots/" + shown), "user.albumfs.screenshot") ?? ""
        XCTAssertTrue(why.hasPrefix("yes (") && why.contains("Captures"), why)
        m.finish()
    }

    func testSourceErrors() {
        expectError([source.path + "/missing", mountpoint], code: 3, message: "No such file or directory")
        expectError([source.path + "/Edge/no-exif.jpg", mountpoint], code: 3, message: "is not a directory")
    }

    func testUnreadableSource() throws {
        // Root reads everything: drop the capabilities that let it, as an ordinary user would be.
        chmod(source.path, 0o000)
        defer { chmod(source.path, 0o755) }
        let r = runCommand("/usr/bin/setpriv", ["--bounding-set", "-dac_override,-dac_read_search", "--inh-caps", "-all",
                                         albumfsBinary(), source.path, mountpoint])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot be read: Permission denied"), r.stderr)
    }

    /// A /dev/fuse only root may open (some containers and hardened systems): an ordinary user
    /// gets one line saying so and exit 5, not libfuse's message and a failed mount. The machine's
    /// own /dev/fuse is left alone: in a mount namespace of the test's own, a file only root may
    /// open is bound over it.
    func testADevFuseOnlyRootMayOpen() throws {
        // A copy anyone may run (the build folder may be root's alone), and the stand-in device.
        let bin = makeTempFolder("bin")
        defer { try? FileManager.default.removeItem(atPath: bin) }
        XCTAssertEqual(shell("chmod 755 '\(bin)' && cp '\(albumfsBinary())' '\(bin)/albumfs' && chmod 755 '\(bin)/albumfs'"
                             + " && touch '\(bin)/fuse' && chmod 600 '\(bin)/fuse'").status, 0)
        let r = runCommand("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c",
                                                "mount --bind '\(bin)/fuse' /dev/fuse && exec /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "
                                                + "'\(bin)/albumfs' '\(source.path)' '\(mountpoint!)'"])
        XCTAssertEqual(r.status, 5, r.stderr)
        XCTAssertTrue(r.stderr.contains("/dev/fuse cannot be opened (Permission denied)"), r.stderr)
    }

    func testMountpointErrors() throws {
        expectError([source.path, mountpoint + "/missing"], code: 4, message: "No such file or directory")
        expectError([source.path, source.path + "/Edge/no-exif.jpg"], code: 4, message: "is not a directory")
        expectError([source.path, source.path], code: 4, message: "MOUNTPOINT and SOURCE are the same folder")
        let full = makeTempFolder("full")
        defer { try? FileManager.default.removeItem(atPath: full) }
        XCTAssertTrue(FileManager.default.createFile(atPath: full + "/x", contents: nil))
        expectError([source.path, full], code: 4, message: "is not empty (-o nonempty mounts over it")
        // Even with -o nonempty, a library inside MOUNTPOINT would be hidden from its own daemon.
        expectError(["-o", "nonempty", source.path + "/Sony", source.path], code: 4, message: "is inside MOUNTPOINT")
    }

    /// `-o nonempty` keeps its FUSE 2 meaning: the mount goes over a folder that holds files, which
    /// are hidden while mounted and there again after.
    func testNonemptyMountsOverAFolderWithFiles() throws {
        let full = makeTempFolder("full")
        defer { try? FileManager.default.removeItem(atPath: full) }
        XCTAssertTrue(FileManager.default.createFile(atPath: full + "/x", contents: Data("kept".utf8)))
        let r = albumfs(["-o", "nonempty,index=\(state!)/index.sqlite", source.path, full])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(readdirNames(full), ["by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types", "places", "duplicates", "filter", "thumbnails", "picked", ".albumfs"])
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", full]).status, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: full + "/x"), Data("kept".utf8))
    }

    /// `albumfs status` tells a path that is not there from a folder that is no albumfs mount.
    func testStatusOfAMissingPathAndOfAFolderThatIsNoMount() {
        let missing = albumfs(["status", mountpoint + "/missing"])
        XCTAssertEqual(missing.status, 4)
        XCTAssertEqual(missing.stderr, "albumfs status: '\(mountpoint!)/missing': No such file or directory\n")
        let plain = albumfs(["status", mountpoint])
        XCTAssertEqual(plain.status, 4)
        XCTAssertTrue(plain.stderr.hasPrefix("albumfs status: '\(mountpoint!)' is not an albumfs mount"), plain.stderr)
    }

    func testAlreadyMounted() throws {
        let first = albumfs([source.path, mountpoint])
        XCTAssertEqual(first.status, 0, first.stderr)
        let second = albumfs([source.path, mountpoint])
        XCTAssertEqual(second.status, 4)
        XCTAssertTrue(second.stderr.contains("is already a mount point"), second.stderr)
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", mountpoint]).status, 0)
    }

    func testStaleMountIsExplained() throws {
        let mount = try Mount(source: source.path)
        XCTAssertEqual(kill(mount.process.processIdentifier, SIGKILL), 0)
        mount.process.waitUntilExit()
        XCTAssertNil(opendir(mount.mountpoint))
        XCTAssertEqual(errno, ENOTCONN)
        let r = albumfs([source.path, mount.mountpoint])
        XCTAssertEqual(r.status, 4)
        XCTAssertTrue(r.stderr.contains("Transport endpoint is not connected"), r.stderr)
        XCTAssertTrue(r.stderr.contains("fusermount3 -u"), r.stderr)
        let status = albumfs(["status", mount.mountpoint])
        XCTAssertEqual(status.status, 4)
        XCTAssertTrue(status.stderr.contains("the daemon of '\(mount.mountpoint)' is gone (Transport endpoint is not connected)"), status.stderr)
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", mount.mountpoint]).status, 0)
        rmdir(mount.mountpoint)
    }

    func testMissingFusermountNamesThePackage() {
        let r = albumfs([source.path, mountpoint], environment: ["PATH": "/nonexistent"])
        XCTAssertEqual(r.status, 5)
        XCTAssertTrue(r.stderr.contains("install the Debian package fuse3"), r.stderr)
    }

    func testMissingDevFuseNamesThePackage() {
        // A private mount namespace whose /dev has no fuse node.
        let r = runCommand("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c",
                                         "mount -t tmpfs none /dev && exec '\(albumfsBinary())' '\(source.path)' '\(mountpoint!)'"])
        XCTAssertEqual(r.status, 5, r.stderr)
        XCTAssertTrue(r.stderr.contains("/dev/fuse is missing"), r.stderr)
        XCTAssertTrue(r.stderr.contains("fuse3"), r.stderr)
    }

    func testBackgroundModeReturnsOnceTheMountAnswers() throws {
        let r = albumfs([source.path, mountpoint, "-o", "noatime,nodev,noexec,fsname=mylib"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(isMounted(mountpoint))
        // The very next command sees the tree.
        XCTAssertEqual(readdirNames(mountpoint), ["by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types", "places", "duplicates", "filter", "thumbnails", "picked", ".albumfs"])
        let mounts = readProcFile("/proc/self/mounts") ?? ""
        let line = mounts.split(separator: "\n").first { $0.hasPrefix("mylib \(mountpoint!) fuse.albumfs ") }
        XCTAssertNotNil(line, mounts.split(separator: "\n").filter { $0.contains("fuse") }.joined(separator: "; "))
        let flags = Set((line?.split(separator: " ").dropFirst(3).first ?? "").split(separator: ","))
        XCTAssertTrue(flags.isSuperset(of: ["noatime", "nodev", "noexec"]), "the kernel flags given: \(flags)")
        let pid = daemonPid(for: mountpoint)
        XCTAssertNotNil(pid)
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", mountpoint]).status, 0)
        XCTAssertTrue(waitUntilGone(pid), "the daemon exits after unmount")
        XCTAssertFalse(isMounted(mountpoint))
    }

    /// `-o max_read=N` mounts and serves whole files in reads of at most N bytes (libfuse refuses
    /// the kernel's connection unless the filesystem says the size again when it connects); FUSE
    /// 2's `nonempty` and `big_writes`, FUSE 3's behaviour now, are accepted so that an old fstab
    /// line still mounts.
    func testMaxReadAndFUSE2OptionsMount() throws {
        let r = albumfs([source.path, mountpoint, "-o", "max_read=4096,nonempty,big_writes,index=\(state!)/index.sqlite"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let mounts = readProcFile("/proc/self/mounts") ?? ""
        XCTAssertTrue(mounts.split(separator: "\n").contains { $0.contains(" \(mountpoint!) ") && $0.contains("max_read=4096") }, mounts)
        var compared = 0
        for name in readdirNames(mountpoint + "/non-screenshots") ?? [] {
            let path = mountpoint + "/non-screenshots/" + name
            let original = try XCTUnwrap(xattr(path, "user.albumfs.source"))
            XCTAssertEqual(try? readFile(path).get(), FileManager.default.contents(atPath: original).map { [UInt8]($0) }, name)
            compared += 1
        }
        XCTAssertGreaterThan(compared, 20)
        XCTAssertEqual((try? readFile(mountpoint + "/thumbnails/200x200/IMG_1234.jpg").get())?.count, 30_000)
        XCTAssertEqual(runCommand("/usr/bin/fusermount3", ["-u", mountpoint]).status, 0)
    }

    /// The daemon raises its soft descriptor limit to the hard one (each open original and each
    /// scan reader holds descriptors; the usual soft 1024 is a relic of select).
    func testTheDaemonRaisesItsDescriptorLimit() throws {
        let m = try Mount(source: source.path, launcher: ["/usr/bin/prlimit", "--nofile=256:4096"])
        let limits = try String(contentsOfFile: "/proc/\(m.process.processIdentifier)/limits", encoding: .utf8)
        let line = try XCTUnwrap(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        XCTAssertEqual(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2), ["4096", "4096"], String(line))
        m.finish()
    }

    func testSigtermSigintAndSighupUnmountCleanly() throws {
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            let mount = try Mount(source: source.path)
            XCTAssertTrue(isMounted(mount.mountpoint))
            XCTAssertEqual(kill(mount.process.processIdentifier, sig), 0)
            XCTAssertEqual(mount.waitForExit(), 0, "exit status after a signal")
            XCTAssertFalse(isMounted(mount.mountpoint), "unmounted after signal \(sig)")
            rmdir(mount.mountpoint)
        }
    }

    func testSigtermToABackgroundDaemon() throws {
        XCTAssertEqual(albumfs([source.path, mountpoint]).status, 0)
        let pid = try XCTUnwrap(daemonPid(for: mountpoint))
        XCTAssertEqual(kill(pid, SIGTERM), 0)
        XCTAssertTrue(waitUntilGone(pid))
        XCTAssertFalse(isMounted(mountpoint))
    }
}
