import AlbumCore
import FoundationEssentials
import Glibc
import AlbumSystem

/// A progress line on a terminal's stderr: count, total, rate and time left (after a bar and
/// the percentage, when asked), redrawn in place at most five times a second.
final class ProgressLine: Sendable {
    let label: String
    let showsBar: Bool
    private let state = Locked((started: Date(), last: Date.distantPast))

    /// Cells of the bar.
    static let barWidth = 24

    init(label: String, bar: Bool = false) {
        self.label = label
        showsBar = bar
    }

    /// `[#########---------------]  37%`
    static func bar(done: Int, total: Int) -> String {
        let fraction = total > 0 ? min(1, max(0, Double(done) / Double(total))) : 0
        let filled = Int((fraction * Double(barWidth)).rounded(.down))
        let percent = Int((fraction * 100).rounded(.down))
        let number = String(percent)
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "] "
            + String(repeating: " ", count: 3 - number.count) + number + "%"
    }

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
        let bar = showsBar ? Self.bar(done: done, total: total) + " " : ""
        let text = "\r\u{1B}[Kalbumfs: \(label) \(bar)\(done)/\(total) files, \(rate.fixed(0))/s, \(left.fixed(0)) s left"
        Log.write(finished ? text + "\n" : text)
    }
}
