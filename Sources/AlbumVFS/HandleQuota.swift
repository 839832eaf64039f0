import Glibc
import AlbumSystem

/// How many originals each user may hold open through the mount at once: every handle holds a
/// descriptor of the daemon's, and a user who never closes what they open must not take them
/// all (the mounting user's and everyone else's opens, and thumbnails, would fail). The mounting
/// user, the owner the mount shows and root are not counted (`Owner.isPrivileged`).
final class HandleQuota: Sendable {
    /// Handles one other user may hold at once: an eighth of the daemon's descriptors, at least 64.
    let limit: Int
    // Protects the count per user; never held across I/O.
    private let held = Locked<[UInt32: Int]>([:])

    init(limit: Int = HandleQuota.defaultLimit) { self.limit = limit }

    static var defaultLimit: Int {
        var l = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &l) == 0, l.rlim_cur < rlim_t(Int32.max) else { return 1024 }
        return max(64, Int(l.rlim_cur) / 8)
    }

    /// Takes one for `user`: false when they hold `limit` already.
    func take(_ user: UInt32) -> Bool {
        held.withLock { h in
            guard h[user, default: 0] < limit else { return false }
            h[user, default: 0] += 1
            return true
        }
    }

    func give(_ user: UInt32) {
        held.withLock { h in
            let n = h[user, default: 0] - 1
            h[user] = n > 0 ? n : nil
        }
    }

    /// The handles `user` holds (tests).
    func holding(_ user: UInt32) -> Int { held.withLock { $0[user, default: 0] } }
}
