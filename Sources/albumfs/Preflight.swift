import AlbumCore
import AlbumSystem
import FoundationEssentials
import Glibc

/// Checks done before anything is mounted, each with a one-line message and its exit code.
enum Preflight {
    static func checkFuse() throws(CLIError) {
        guard access("/dev/fuse", F_OK) == 0 else {
            throw CLIError(.noFuse, "albumfs: /dev/fuse is missing: load the fuse module (modprobe fuse) or install the Debian package fuse3")
        }
        // libfuse opens /dev/fuse itself before it would ask fusermount3: a device only root may
        // open (some containers and hardened systems) fails every mount of an ordinary user.
        guard access("/dev/fuse", R_OK | W_OK) == 0 else {
            throw CLIError(.noFuse, "albumfs: /dev/fuse cannot be opened (\(Errno.current)): it is usually mode 0666 (crw-rw-rw-); ask the administrator to restore that")
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let found = path.split(separator: ":").contains { access("\($0)/fusermount3", X_OK) == 0 }
        guard found else {
            throw CLIError(.noFuse, "albumfs: fusermount3 not found in PATH: install the Debian package fuse3 (apt-get install fuse3)")
        }
    }

    /// The absolute, resolved source folder.
    static func checkSource(_ source: String) throws(CLIError) -> String {
        var st = stat()
        guard stat(source, &st) == 0 else {
            throw CLIError(.badSource, "albumfs: SOURCE '\(source)': \(Errno.current)")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIError(.badSource, "albumfs: SOURCE '\(source)' is not a directory")
        }
        guard let dir = opendir(source) else {
            throw CLIError(.badSource, "albumfs: SOURCE '\(source)' cannot be read: \(Errno.current)")
        }
        closedir(dir)
        return realPath(source) ?? source
    }

    /// The absolute, resolved mount point.
    /// - Parameter allowNonEmpty: `-o nonempty`: files in MOUNTPOINT are hidden while mounted.
    static func checkMountpoint(_ mountpoint: String, source: String, allowNonEmpty: Bool = false) throws(CLIError) -> String {
        var st = stat()
        guard stat(mountpoint, &st) == 0 else {
            let e = Errno.current
            if e.rawValue == ENOTCONN {
                throw CLIError(.badMountpoint, "albumfs: MOUNTPOINT '\(mountpoint)': \(e) (a stale mount left by a daemon that died; clear it with: fusermount3 -u '\(mountpoint)')")
            }
            throw CLIError(.badMountpoint, "albumfs: MOUNTPOINT '\(mountpoint)': \(e)")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIError(.badMountpoint, "albumfs: MOUNTPOINT '\(mountpoint)' is not a directory")
        }
        let resolved = realPath(mountpoint) ?? mountpoint
        if isMountPoint(resolved) {
            // The kernel may still answer `stat` from its cache for a dead FUSE daemon; listing
            // the folder reaches the daemon and tells a stale mount from a live one.
            if let dir = opendir(mountpoint) { closedir(dir) } else if errno == ENOTCONN {
                throw CLIError(.badMountpoint, "albumfs: MOUNTPOINT '\(mountpoint)': \(Errno.current) (a stale mount left by a daemon that died; clear it with: fusermount3 -u '\(mountpoint)')")
            }
            throw CLIError(.badMountpoint, "albumfs: MOUNTPOINT '\(mountpoint)' is already a mount point (unmount it first: fusermount3 -u '\(mountpoint)')")
        }
        if resolved == source {
            throw CLIError(.badMountpoint, "albumfs: MOUNTPOINT and SOURCE are the same folder")
        }
        // The mount would hide the library from its own daemon (and a walk into it would wait on
        // itself).
        if source.isWithin(folder: resolved) {
            throw CLIError(.badMountpoint, "albumfs: SOURCE '\(source)' is inside MOUNTPOINT '\(mountpoint)': the mount would hide it")
        }
        if allowNonEmpty { return resolved }
        guard let dir = opendir(mountpoint) else {
            throw CLIError(.badMountpoint, "albumfs: MOUNTPOINT '\(mountpoint)' cannot be read: \(Errno.current)")
        }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = direntName(entry)
            if name != "." && name != ".." {
                throw CLIError(.badMountpoint, "albumfs: MOUNTPOINT '\(mountpoint)' is not empty (-o nonempty mounts over it, hiding its files while mounted)")
            }
        }
        return resolved
    }

    /// Whether `path` is listed as a mount point in /proc/self/mountinfo (field 5, octal-escaped).
    static func isMountPoint(_ path: String) -> Bool {
        guard let info = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return false }
        for line in info.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 4 else { continue }
            if unescape(String(fields[4])) == path { return true }
        }
        return false
    }

    static func unescape(_ s: String) -> String {
        guard s.contains("\\") else { return s }
        var bytes: [UInt8] = []
        var u = Array(s.utf8)[...]
        while let b = u.first {
            if b == UInt8(ascii: "\\"), u.count >= 4, let v = UInt8(String(decoding: u.dropFirst().prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(v)
                u = u.dropFirst(4)
            } else {
                bytes.append(b)
                u = u.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func realPath(_ path: String) -> String? {
        guard let r = realpath(path, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }
}
