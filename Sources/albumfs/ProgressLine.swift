import AlbumCore
import FoundationEssentials
import Glibc
import Synchronization

/// A progress line on a terminal's stderr: count, total, rate and time left, redrawn in place
/// at most five times a second.
final class ProgressLine: Sendable {
    let label: String
    private let state = Mutex((started: Date(), last: Date.distantPast))

    init(label: String) { self.label = label }

    func update(done: Int, total: Int, finished: Bool) {
        let now = Date()
        let (started, show) = state.withLock { s -> (Date, Bool) in
            if done == 0 || s.started > now { s.started = now }
            let show = finished || now.timeIntervalSince(s.last) >= 0.2
            if show { s.last = now }
            return (s.started, show)
        }
        guard show, total > 0 else { return }
        let elapsed = max(0.001, now.timeIntervalSince(started))
        let rate = Double(done) / elapsed
        let left = rate > 0 ? Double(total - done) / rate : 0
        let text = "\r\u{1B}[Kalbumfs: \(label) \(done)/\(total) files, \(rate.fixed(0))/s, \(left.fixed(0)) s left"
        Log.write(finished ? text + "\n" : text)
    }
}
