import Glibc

/// A folder of albumfs's own state (the index, the picks, the thumbnail cache), kept private.
///
/// What is missing is made with mode 0700; a folder of ours that exists is narrowed to 0700 (an
/// older albumfs made them 0755, and they hold thumbnails of photos others may not read). A
/// folder that is not the user's, or on the way to one that another user could replace (owned by
/// someone else, or writable by group or others without the sticky bit, like a pre-made
/// `/tmp/.cache`), is refused: a thumbnail or an index planted there would be served as ours.
public enum PrivateFolder {
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let reason: String
        public var description: String { "\(path) is not private (\(reason)): not used" }
    }

    /// Makes or checks `path` (absolute). Nil when it cannot be made or narrowed (a read-only
    /// home: the caller goes without it); throws when it must not be used.
    @discardableResult
    public static func make(_ path: String) throws(Refusal) -> String? {
        let path = path.hasPrefix("/") ? path : currentFolder() + "/" + path
        let me = geteuid()
        var sofar = ""
        let parts = path.split(separator: "/")
        for (i, part) in parts.enumerated() {
            sofar += "/" + part
            let last = i == parts.count - 1
            var st = stat()
            if lstat(sofar, &st) != 0 {
                guard errno == ENOENT, mkdir(sofar, 0o700) == 0 || errno == EEXIST, lstat(sofar, &st) == 0 else { return nil }
            }
            // A link on the way is followed (a home reached through one) when the user or root
            // made it (another user could point it elsewhere later); what it leads to is checked.
            if st.st_mode & S_IFMT == S_IFLNK {
                if last { throw Refusal(path: sofar, reason: "a symbolic link") }
                guard st.st_uid == me || st.st_uid == 0 else { throw Refusal(path: sofar, reason: "a symbolic link owned by uid \(st.st_uid)") }
                guard stat(sofar, &st) == 0 else { return nil }
            }
            // (A file in the way: it cannot be made, as on a read-only disk; what uses it says why.)
            guard st.st_mode & S_IFMT == S_IFDIR else { return nil }
            if last {
                guard st.st_uid == me else { throw Refusal(path: sofar, reason: "owned by uid \(st.st_uid), not \(me)") }
                if st.st_mode & 0o077 != 0, chmod(sofar, 0o700) != 0 { return nil }
            } else {
                try checkAncestor(sofar, st, me: me)
            }
        }
        return path
    }

    /// A folder on the way: the user's or root's, and writable by no one else (or sticky, as
    /// `/tmp` is, where others cannot rename what is ours).
    private static func checkAncestor(_ path: String, _ st: stat, me: uid_t) throws(Refusal) {
        guard st.st_uid == me || st.st_uid == 0 else { throw Refusal(path: path, reason: "owned by uid \(st.st_uid)") }
        if st.st_mode & 0o022 != 0 && st.st_mode & S_ISVTX == 0 {
            throw Refusal(path: path, reason: "writable by group or others")
        }
    }

    private static func currentFolder() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
