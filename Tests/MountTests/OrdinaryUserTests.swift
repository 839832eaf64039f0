import Foundation
import Glibc
import XCTest

/// The path most users take: an ordinary user (`nobody`, 65534, with a scratch home) mounts their
/// own library through the setuid `fusermount3`, and keeps the index, the picks and the caches
/// under their home. Each test runs in a mount namespace of its own (`OrdinaryUser`), where a
/// fuse.conf of the test's is bound over the machine's; every look at the mount is a command run
/// there as the user, another user, or root, as the kernel would see them.
final class OrdinaryUserTests: SampleLibraryTestCase {
    var user: OrdinaryUser!

    override func setUpWithError() throws {
        try super.setUpWithError()
        user = try OrdinaryUser()
        // The user's own library, as their ~/Pictures is.
        XCTAssertEqual(runCommand("/bin/chown", ["-R", "\(user.uid):\(user.uid)", source.path]).status, 0)
    }

    override func tearDown() {
        user = nil
        super.tearDown()
    }

    /// The lines a command printed.
    func lines(_ r: CommandResult) -> [String] { r.stdout.split(separator: "\n").map(String.init) }

    /// A folder's names in readdir order (`ls -f`), as `who` lists them.
    func listing(_ path: String, as who: uid_t? = nil) -> [String] {
        lines(user.run("ls -f '\(path)'", as: who)).filter { $0 != "." && $0 != ".." }
    }

    /// `.albumfs/status` as the user reads it.
    func status(_ m: Mount) -> [String: String] {
        var out: [String: String] = [:]
        for line in lines(user.run("cat '\(m.path(".albumfs/status"))'")) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            out[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return out
    }

    /// The root, `by-date/`'s years newest first, and every original byte for byte, as the user
    /// sees them; the mount is the user's (`user_id`), made by fusermount3 in the namespace only;
    /// without `allow_other` the kernel keeps everyone else out, root too.
    func testTheUserSeesTheLayoutAndTheOriginalsBytes() throws {
        let m = try Mount(source: source.path, user: user)
        let entry = try XCTUnwrap(user.mountLine(m.mountpoint), user.mounts)
        XCTAssertTrue(entry.contains(" fuse.albumfs ") && entry.contains("user_id=\(user.uid),") && !entry.contains("allow_other"), entry)
        XCTAssertFalse(isMounted(m.mountpoint), "the mount shows in the test's namespace only")
        XCTAssertEqual(listing(m.mountpoint), ["by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types",
                                               "places", "duplicates", "filter", "thumbnails", "picked", ".albumfs"])
        let years = Set(source.items.compactMap { $0.expectedDay.map { String($0.prefix(4)) } })
        XCTAssertGreaterThan(years.count, 3)
        XCTAssertEqual(listing(m.path("by-date")), years.sorted(by: >), "years newest first")
        // Each photo of non-screenshots/ against the file its `user.albumfs.source` names (cmp).
        let compare = user.run("""
            cd '\(m.path("non-screenshots"))' && for f in *; do
              src=$(getfattr --only-values -n user.albumfs.source "$f") && cmp -- "$f" "$src" && echo "$f"; done
            """)
        let photos = listing(m.path("non-screenshots"))
        XCTAssertGreaterThan(photos.count, 20)
        XCTAssertEqual(Set(lines(compare)), Set(photos), compare.stderr)
        for (who, r) in [("another user", user.run("ls '\(m.mountpoint)'", as: OrdinaryUser.other)), ("root", user.runAsRoot("ls '\(m.mountpoint)'"))] {
            XCTAssertNotEqual(r.status, 0, who)
            XCTAssertTrue(r.stderr.contains("Permission denied"), "\(who): \(r.stderr)")
        }
        m.finish()
    }

    /// Picks as the user makes them (the duplicate and the limit refused with their errno),
    /// kept in the picks database under the user's home, found again by a new mount; the
    /// index there too, every state file the user's and private; nothing written in SOURCE nor
    /// anywhere else the user could write.
    func testPicksAndStateLiveUnderTheUsersHome() throws {
        let before = user.run("find '\(source.path)' -printf '%P %s %T@ %U\\n' | sort")
        let marker = user.work + "/marker"
        XCTAssertTrue(FileManager.default.createFile(atPath: marker, contents: nil))
        let m = try Mount(source: source.path, options: ["-o", "max_picks=2"], user: user)
        let picked = m.path("picked")
        XCTAssertEqual(user.run("ln -s ../non-screenshots/DSC01234.JPG '\(picked)/'").status, 0)
        let again = user.run("ln -s ../by-date/2021/2021-12/2021-12-31/DSC01234.JPG '\(picked)/b.jpg'")
        XCTAssertTrue(again.stderr.contains("File exists"), "EEXIST: \(again.stderr)")
        XCTAssertEqual(user.run("ln -s ../non-screenshots/DSCF0001.JPG '\(picked)/'").status, 0)
        let third = user.run("ln -s ../non-screenshots/IMG_1234.JPG '\(picked)/'")
        XCTAssertTrue(third.stderr.contains("Disk quota exceeded"), "EDQUOT: \(third.stderr)")
        XCTAssertEqual(listing(picked), ["DSC01234.JPG", "DSCF0001.JPG"])
        XCTAssertEqual(lines(user.run("readlink '\(picked)/DSC01234.JPG'")), ["../by-date/2021/2021-12/2021-12-31/DSC01234.JPG"])
        let said = status(m)
        XCTAssertEqual(said["scan_state"], "done")
        XCTAssertEqual(said["picks"], "2")
        XCTAssertEqual(said["picks_db"], user.home + "/.local/share/albumfs/picks.sqlite")
        XCTAssertTrue(said["index"]?.hasPrefix(user.home + "/.cache/albumfs/index/") == true, "\(said)")
        XCTAssertEqual(said["thumbnail_cache_dir"], user.home + "/.cache/albumfs/thumbnails")
        m.finish()
        let state = lines(user.run("cd \"$HOME\" && find .local .cache -printf '%U %m %y %p\\n'"))
        XCTAssertTrue(state.contains("\(user.uid) 600 f .local/share/albumfs/picks.sqlite"), "\(state)")
        XCTAssertTrue(state.contains { $0.hasPrefix("\(user.uid) 600 f .cache/albumfs/index/") && $0.hasSuffix(".sqlite") }, "\(state)")
        for folder in [".local/share/albumfs", ".cache/albumfs/index", ".cache/albumfs/thumbnails"] {
            XCTAssertTrue(state.contains("\(user.uid) 700 d \(folder)"), "\(folder): \(state)")
        }
        XCTAssertEqual(state.filter { !$0.hasPrefix("\(user.uid) ") }, [], "everything there is the user's")
        let remount = try Mount(source: source.path, user: user)
        XCTAssertEqual(listing(remount.path("picked")), ["DSC01234.JPG", "DSCF0001.JPG"], "the picks persist under the home")
        remount.finish()
        XCTAssertEqual(user.run("find '\(source.path)' -printf '%P %s %T@ %U\\n' | sort").stdout, before.stdout, "SOURCE unchanged")
        XCTAssertGreaterThan(lines(before).count, 40)
        let tmp = NSTemporaryDirectory()
        let elsewhere = user.runAsRoot("find /root /var/tmp /dev/shm -xdev -maxdepth 3 -user \(user.uid) -newer '\(marker)';"
                                       + " find '\(tmp)' -xdev -maxdepth 1 -user \(user.uid) -newer '\(marker)'")
        XCTAssertEqual(elsewhere.status, 0, elsewhere.stderr)
        XCTAssertEqual(elsewhere.stdout, "", "written by the user outside its home")
    }

    /// With `allow_other`, taken because the namespace's fuse.conf says `user_allow_other`:
    /// another user lists the photos and reads an original, but neither picks nor reads the
    /// daemon's own files, which the user reads.
    func testAllowOtherLetsOthersReadButNotPickNorReadTheState() throws {
        let m = try Mount(source: source.path, options: ["-o", "allow_other"], user: user)
        let entry = try XCTUnwrap(user.mountLine(m.mountpoint), user.mounts)
        XCTAssertTrue(entry.contains("user_id=\(user.uid),") && entry.contains("allow_other"), entry)
        XCTAssertNil(readProcFile("/proc/self/mounts")?.split(separator: "\n").first { $0.contains(" /etc/fuse.conf ") },
                     "the fuse.conf is bound in the namespace only")
        XCTAssertEqual(listing(m.path("non-screenshots"), as: OrdinaryUser.other), listing(m.path("non-screenshots")))
        XCTAssertEqual(user.run("cmp '\(m.path("non-screenshots/DSC01234.JPG"))' '\(source.path)/Sony/DSC01234.JPG'", as: OrdinaryUser.other).status, 0)
        let pick = user.run("ln -s ../non-screenshots/DSC01234.JPG '\(m.path("picked"))/'", as: OrdinaryUser.other)
        XCTAssertTrue(pick.stderr.contains("Permission denied"), "EACCES: \(pick.stderr)")
        XCTAssertEqual(listing(m.path("picked")), [])
        let state = user.run("cat '\(m.path(".albumfs/status"))'", as: OrdinaryUser.other)
        XCTAssertTrue(state.stderr.contains("Permission denied"), "EACCES: \(state.stderr)")
        XCTAssertEqual(status(m)["scan_state"], "done", "the user reads it")
        m.finish()
    }

    /// Without `user_allow_other` in the fuse.conf the namespace sees, fusermount3 refuses the
    /// user's `allow_other`: the mount fails, says why, and leaves nothing mounted.
    func testAllowOtherIsRefusedWithoutUserAllowOther() throws {
        user = try OrdinaryUser(userAllowOther: false)
        let mountpoint = user.work + "/mnt"
        XCTAssertEqual(mkdir(mountpoint, 0o755), 0)
        XCTAssertEqual(chown(mountpoint, user.uid, user.uid), 0)
        let c = user.command([user.binary, "-f", "-o", "allow_other", source.path, mountpoint])
        let r = runCommand(c[0], Array(c.dropFirst()), timeout: 30)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("option allow_other only allowed if 'user_allow_other' is set in /etc/fuse.conf"), r.stderr)
        XCTAssertFalse(user.isMounted(mountpoint))
    }

    /// `-o desktop_thumbnails`: the user's listing writes the freedesktop thumbnails into the
    /// user's own cache, which GIO, run as the user, finds valid; `thumbnails/` renders as the
    /// user, into the user's render cache.
    func testDesktopAndMountThumbnailsAreMadeIntoTheUsersCache() throws {
        let m = try Mount(source: source.path, options: ["-o", "desktop_thumbnails"], user: user)
        let photo = m.path("non-screenshots/IMG_0001.JPG")
        XCTAssertGreaterThan(listing(m.path("non-screenshots")).count, 20)
        let name = lines(user.run("printf '%s' 'file://\(photo)' | md5sum")).first.map { String($0.prefix(32)) } ?? ""
        let png = user.home + "/.cache/thumbnails/normal/" + name + ".png"
        XCTAssertTrue(eventually(20) { statOf(png) != nil }, "the listing's thumbnail \(png)")
        XCTAssertEqual(lines(user.run("stat -c '%u %a' \"$HOME/.cache/thumbnails/normal\" '\(png)'")), ["\(user.uid) 700", "\(user.uid) 600"])
        XCTAssertEqual(runCommand("/usr/bin/identify", ["-format", "%w %h", png]).stdout, "96 64", "never enlarged")
        let gio = user.run("gio info -a thumbnail::path,thumbnail::is-valid '\(photo)'")
        XCTAssertTrue(gio.stdout.contains("thumbnail::path: \(png)") && gio.stdout.contains("thumbnail::is-valid: TRUE"), gio.stdout + gio.stderr)
        let thumbnail = user.home + "/IMG_1234.jpg"
        XCTAssertEqual(user.run("cat '\(m.path("thumbnails/200x200/IMG_1234.jpg"))' > '\(thumbnail)'").status, 0)
        let size = lines(user.run("stat -c %s '\(m.path("thumbnails/200x200/IMG_1234.jpg"))'")).first
        XCTAssertEqual(size, statOf(thumbnail).map { String($0.st_size) }, "the size told is the size served")
        XCTAssertEqual(runCommand("/usr/bin/identify", ["-format", "%m", thumbnail]).stdout, "JPEG")
        let cached = lines(user.run("find \"$HOME/.cache/albumfs/thumbnails\" -type f -printf '%U\\n'"))
        XCTAssertFalse(cached.isEmpty, "the render is cached under the home")
        XCTAssertEqual(Set(cached), ["\(user.uid)"])
        m.finish()
    }

    /// `-o auto_unmount,allow_other`: the user's daemon killed (SIGKILL), the fusermount3 helper
    /// libfuse left for it takes the mount away and ends.
    ///
    /// libfuse's helper (3.14) races the dying daemon: it wakes when the daemon's end of their
    /// socket closes, and unmounts only if opening the mount point then fails with ENOTCONN; an
    /// open that comes before the kernel has aborted the connection (the daemon's FUSE descriptor
    /// still closing) fails with ECONNABORTED instead, and the helper leaves the mount. On a loaded
    /// machine that happens about once in twenty kills. So a kill is tried up to three times: the
    /// helper must clear the mount in one, and a mount it left is stale (ENOTCONN) and the user's
    /// `fusermount3 -u` clears it.
    func testAutoUnmountClearsTheUsersMountWhenItsDaemonIsKilled() throws {
        var cleared = false
        for attempt in 1...3 where !cleared {
            let m = try Mount(source: source.path, options: ["-o", "auto_unmount,allow_other"], user: user)
            let helper = try XCTUnwrap(try killAfterItsWorkersStarted(m), "the auto_unmount helper")
            XCTAssertTrue(waitUntilGone(helper), "the helper ends")
            cleared = eventually(10) { !user.isMounted(m.mountpoint) }
            if cleared {
                XCTAssertEqual(listing(m.mountpoint), [], "an empty folder again, no stale mount")
            } else {
                let stale = user.run("ls '\(m.mountpoint)'").stderr
                XCTAssertTrue(stale.contains("Transport endpoint is not connected"), "attempt \(attempt): \(stale)")
                XCTAssertEqual(m.fusermount(["-u"]).status, 0, "attempt \(attempt): the user clears the mount the helper left")
                XCTAssertFalse(user.isMounted(m.mountpoint))
            }
        }
        XCTAssertTrue(cleared, "the helper cleared none of three killed daemons' mounts")
    }

    /// Without `allow_other`, libfuse's helper (3.14) checks the mount point as root, which the
    /// kernel keeps out of a user's mount, and leaves it: the killed daemon's mount answers
    /// ENOTCONN until the user runs `fusermount3 -u`, as `albumfs` then says (docs/cli.md).
    func testWithoutAllowOtherAKilledDaemonsMountStaysUntilTheUserClearsIt() throws {
        let m = try Mount(source: source.path, options: ["-o", "auto_unmount"], user: user)
        let helper = try XCTUnwrap(try killAfterItsWorkersStarted(m), "the auto_unmount helper")
        XCTAssertTrue(waitUntilGone(helper), "the helper ends")
        XCTAssertTrue(user.isMounted(m.mountpoint), "left mounted")
        XCTAssertTrue(user.run("ls '\(m.mountpoint)'").stderr.contains("Transport endpoint is not connected"))
        let again = user.command([user.binary, source.path, m.mountpoint])
        XCTAssertTrue(runCommand(again[0], Array(again.dropFirst())).stderr.contains("clear it with: fusermount3 -u '\(m.mountpoint)'"))
        XCTAssertEqual(m.fusermount(["-u"]).status, 0, "the user clears it")
        XCTAssertFalse(user.isMounted(m.mountpoint))
    }

    /// Kills the daemon (SIGKILL) once its render workers have all started (none is being
    /// forked, holding the FUSE descriptor, as it dies): the pid of its fusermount3 helper.
    func killAfterItsWorkersStarted(_ m: Mount) throws -> pid_t? {
        let pid = m.process.processIdentifier
        XCTAssertTrue(user.isMounted(m.mountpoint))
        XCTAssertTrue(eventually(20) { status(m)["render_workers"].map { w in w.split(separator: " ").first == w.split(separator: " ").last } == true },
                      "\(status(m))")
        let children = (try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")).flatMap { task in
            (readProcFile("/proc/\(pid)/task/\(task)/children") ?? "").split(separator: " ").compactMap { pid_t($0) }
        }
        let helper = children.first { readProcFile("/proc/\($0)/comm") == "fusermount3\n" }
        XCTAssertEqual(kill(pid, SIGKILL), 0)
        m.process.waitUntilExit()
        XCTAssertEqual(m.process.terminationReason, .uncaughtSignal)
        return helper
    }
}
