import Foundation
import Glibc
import XCTest

/// The path most users take: an ordinary user mounts through the setuid `fusermount3`, with
/// `allow_other` where the machine's /etc/fuse.conf says `user_allow_other`, and keeps its state
/// under that user's home. Every daemon of the other tests runs as root; this one runs as
/// `nobody` (65534) in a mount namespace of the test's own, where a fuse.conf of the test's is
/// bound over the machine's (which is never changed) and the mount lives and dies. A script run
/// there writes what each step saw; the test reads it.
final class OrdinaryUserTests: SampleLibraryTestCase {
    static let user: uid_t = 65534
    static let otherUser: uid_t = 65533

    func testAnOrdinaryUserMountsPicksAndKeepsItsStateAtHome() throws {
        let work = makeTempFolder("ordinary")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let home = work + "/home", out = work + "/out", mnt = work + "/mnt"
        for folder in [home, out, mnt, work + "/bin"] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        XCTAssertEqual(shell("chmod 755 '\(work)' '\(work)/bin' && cp '\(albumfsBinary())' '\(work)/bin/albumfs' && chmod 755 '\(work)/bin/albumfs'"
                             + " && chown \(Self.user):\(Self.user) '\(home)' '\(out)' '\(mnt)' && chmod -R a+rX '\(source.path)'"
                             + " && chmod 755 \"$(dirname '\(source.path)')\"").status, 0)
        try "user_allow_other\n".write(toFile: work + "/fuse.conf", atomically: true, encoding: .utf8)
        try Self.script(albumfs: work + "/bin/albumfs", source: source.path, mountpoint: mnt, out: out, home: home)
            .write(toFile: work + "/as-user.sh", atomically: true, encoding: .utf8)
        try Self.others(mountpoint: mnt, out: out).write(toFile: work + "/others.sh", atomically: true, encoding: .utf8)
        let r = runCommand("/usr/bin/unshare", ["-m", "--propagation", "private", "/bin/sh", "-c",
            "mount --bind '\(work)/fuse.conf' /etc/fuse.conf || exit 8; /usr/bin/setpriv --reuid=\(Self.user) --regid=\(Self.user) --clear-groups "
            + "/usr/bin/env -i PATH=/usr/bin:/bin HOME='\(home)' /bin/bash '\(work)/as-user.sh' & user=$!; "
            + "/bin/bash '\(work)/others.sh'; wait $user; status=$?; "
            + "grep -q ' \(mnt) ' /proc/self/mounts && { umount -l '\(mnt)'; exit 9; }; exit $status"], timeout: 180)
        XCTAssertEqual(r.status, 0, "the user's script: \(r.stdout)\n\(r.stderr)")
        let read: (String) -> String = { (try? String(contentsOfFile: out + "/" + $0, encoding: .utf8)) ?? "" }

        let mount = read("mounts.txt")
        XCTAssertTrue(mount.contains("fuse.albumfs") && mount.contains("user_id=\(Self.user)") && mount.contains("allow_other"),
                      "mounted by the user through fusermount3, allow_other taken: \(mount)")
        XCTAssertEqual(read("root.txt").split(separator: "\n"), ["by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types", "places", "duplicates", "filter", "thumbnails", "picked", ".albumfs"])
        let status = read("status.txt")
        XCTAssertTrue(status.contains("scan_state: done") && status.contains("picks_db: \(home)/.local/share/albumfs/picks.sqlite"), status)
        XCTAssertTrue(status.contains("index: \(home)/.cache/albumfs/index/"), status)
        XCTAssertEqual(read("picked.txt"), "IMG_1234.JPG\n", "the user picks")
        XCTAssertEqual(read("picked-owner.txt"), "\(Self.user) 755\n", "picked/ is the user's")
        XCTAssertEqual(read("thumbnail.txt"), "30000\n", "a thumbnail rendered, its workers the user's")
        XCTAssertEqual(read("other-list.txt"), "ok\n", "another user lists the photos (allow_other)")
        XCTAssertEqual(read("other-pick.txt"), "refused\n", "another user cannot pick")
        XCTAssertEqual(read("other-status.txt"), "refused\n", "another user cannot read the daemon's own files")
        XCTAssertEqual(read("unmounted.txt"), "yes\n", "fusermount3 -u by the user")
        let state = read("state.txt").split(separator: "\n").map(String.init)
        XCTAssertTrue(state.contains { $0.hasPrefix("\(Self.user) ") && $0.hasSuffix("/.local/share/albumfs/picks.sqlite") }, "\(state)")
        XCTAssertTrue(state.contains { $0.hasPrefix("\(Self.user) ") && $0.contains("/.cache/albumfs/index/") && $0.hasSuffix(".sqlite") }, "\(state)")
        XCTAssertTrue(state.contains { $0.hasPrefix("\(Self.user) ") && $0.hasSuffix("/.cache/albumfs/thumbnails") }, "\(state)")
        XCTAssertEqual(read("remount-picked.txt"), "IMG_1234.JPG\n", "the pick persists under the home")
    }

    /// What another user tries while the user's mount is up (run by root in the namespace, which
    /// may become that user).
    static func others(mountpoint mnt: String, out: String) -> String {
        """
        attempt() { /usr/bin/setpriv --reuid=\(otherUser) --regid=\(otherUser) --clear-groups "$@" >/dev/null 2>&1 && echo ok || echo refused; }
        for i in $(seq 1200); do [ -e '\(out)/mounted' ] && break; sleep 0.05; done
        attempt ls '\(mnt)/non-screenshots' > '\(out)/other-list.txt'
        attempt ln -s ../non-screenshots/DSC01234.JPG '\(mnt)/picked/DSC01234.JPG' > '\(out)/other-pick.txt'
        attempt cat '\(mnt)/.albumfs/status' > '\(out)/other-status.txt'
        touch '\(out)/others-done'
        """
    }

    /// What the user runs: mount, look, pick, let another user try, unmount, list the home.
    static func script(albumfs: String, source: String, mountpoint: String, out: String, home: String) -> String {
        """
        set -u
        mnt='\(mountpoint)'; out='\(out)'
        # In the foreground, as this script's child: its process id is known, to wait for its end.
        '\(albumfs)' -f '\(source)' "$mnt" -o allow_other 2> "$out/daemon.log" &
        daemon=$!
        for i in $(seq 600); do grep -q 'scan done' "$out/daemon.log" && break; kill -0 $daemon 2>/dev/null || exit 3; sleep 0.05; done
        grep " $mnt " /proc/self/mounts > "$out/mounts.txt"
        ls -f "$mnt" | grep -vx '[.]' | grep -vx '[.][.]' > "$out/root.txt"
        cat "$mnt/.albumfs/status" > "$out/status.txt"
        ln -s ../non-screenshots/IMG_1234.JPG "$mnt/picked/IMG_1234.JPG" && ls "$mnt/picked" > "$out/picked.txt"
        stat -c '%u %a' "$mnt/picked" > "$out/picked-owner.txt"
        wc -c < "$mnt/thumbnails/200x200/IMG_1234.jpg" > "$out/thumbnail.txt"
        # Another user's turn (`others`, run by root in the namespace), then on.
        touch "$out/mounted"
        for i in $(seq 600); do [ -e "$out/others-done" ] && break; sleep 0.05; done
        fusermount3 -u "$mnt" || exit 4
        for i in $(seq 200); do grep -q " $mnt " /proc/self/mounts || break; sleep 0.05; done
        grep -q " $mnt " /proc/self/mounts && echo no > "$out/unmounted.txt" || echo yes > "$out/unmounted.txt"
        wait $daemon || exit 6
        find '\(home)' \\( -name '*.sqlite' -o -name thumbnails \\) -printf '%U %p\\n' > "$out/state.txt"
        '\(albumfs)' '\(source)' "$mnt" || exit 5
        ls "$mnt/picked" > "$out/remount-picked.txt"
        fusermount3 -u "$mnt"
        """
    }
}
