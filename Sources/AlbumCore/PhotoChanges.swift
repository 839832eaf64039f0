/// How the photos now stand to those a tree shows, told by path: which shown photos are gone
/// (a photo changed is gone, and added again as it is now), where the others are now (a photo
/// removed leaves the last in its place: `LibraryState`), and which photos are added.
struct PhotoChanges {
    /// Each shown photo's index now, -1 where it is gone; nil: every shown photo is where it was.
    let now: [Int32]?
    /// Shown photos gone (their indices before).
    let gone: [Int]
    /// Photos added (their indices now), in `build`'s order.
    let added: [Int]
    /// Shown photos gone or at another index now (their indices before).
    let shifted: [Int]

    /// Nil when more than `most` photos differ by position. The files and the motion photos'
    /// videos after them (`MotionPhotos.adding`) are told apart: a file added or removed moves
    /// every video by one, which is no change of theirs.
    init?(before: [Photo], after: [Photo], most: Int) {
        let files = (before: MotionPhotos.fileCount(before), after: MotionPhotos.fileCount(after))
        guard var (old, new) = Self.differing(before, 0..<files.before, after, 0..<files.after, most: most),
              let videos = Self.differing(before, files.before..<before.count, after, files.after..<after.count, most: most - old.count)
        else { return nil }
        old += videos.old
        new += videos.new
        guard old.count <= most, new.count <= most else { return nil }
        // Videos at the same place among the videos: where the files' count moved them.
        let moved = files.before == files.after ? 0..<0
            : 0..<min(before.count - files.before, after.count - files.after)
        var byPath: [String: Int] = [:]
        for j in new { byPath[after[j].relativePath] = j }
        var kept = Set<Int>(), gone: [Int] = []
        var now: [Int32]? = nil
        var shifted = old
        if !old.isEmpty || !moved.isEmpty {
            var map = Array(0..<Int32(before.count))
            for k in moved { map[files.before + k] = Int32(files.after + k) }
            let differingVideos = Set(videos.old)
            shifted += moved.lazy.map { files.before + $0 }.filter { !differingVideos.contains($0) }
            for i in old {
                if let j = byPath[before[i].relativePath], Self.sameInViews(before[i], after[j]) {
                    map[i] = Int32(j)
                    kept.insert(j)
                } else {
                    map[i] = -1
                    gone.append(i)
                }
            }
            now = map
        }
        self.now = now
        self.gone = gone
        self.shifted = shifted
        added = new.filter { !kept.contains($0) }.sorted { LibraryViews.precedes(after, $0, $1) }
    }

    /// The photos of `a` (indices before) and of `b` (indices now) that differ position by
    /// position, the ranges read from their starts, and those past the shorter; nil past `most`.
    static func differing(_ before: [Photo], _ a: Range<Int>, _ after: [Photo], _ b: Range<Int>,
                          most: Int) -> (old: [Int], new: [Int])? {
        let common = min(a.count, b.count)
        var old: [Int] = [], new: [Int] = []
        for k in 0..<common where !sameInViews(before[a.lowerBound + k], after[b.lowerBound + k]) {
            old.append(a.lowerBound + k)
            new.append(b.lowerBound + k)
            if old.count > most { return nil }
        }
        old += (a.lowerBound + common)..<a.upperBound
        new += (b.lowerBound + common)..<b.upperBound
        return (old, new)
    }

    /// Live Photo pairs (photo indices before) in the indices now; nil when a paired photo is gone.
    func renumbered(_ pairs: [Int32: Int32]) -> [Int32: Int32]? {
        guard let now else { return pairs }
        var result: [Int32: Int32] = [:]
        for (a, b) in pairs {
            guard now[Int(a)] >= 0, now[Int(b)] >= 0 else { return nil }
            result[now[Int(a)]] = now[Int(b)]
        }
        return result
    }

    /// The photos (indices now) of `entries` still there, and `added`, in `build`'s order.
    func members(_ entries: PhotoEntries, adding added: [Int], photos: [Photo]) -> [Int] {
        let kept = entries.members.map { Int(now?[Int($0)] ?? $0) }.filter { $0 >= 0 }
        return (kept + added).sorted { LibraryViews.precedes(photos, $0, $1) }
    }

    /// Whether a photo shows in the same places under the same name (its path, format, time,
    /// day, kind, problems, Live Photo identifier, whether it holds a motion photo's video: all
    /// that `build` looks at). A still that gains or loses its video joins or leaves
    /// `media-types/live-photos/`, so it is changed.
    static func sameInViews(_ a: Photo, _ b: Photo) -> Bool {
        a.relativePath == b.relativePath && a.format == b.format && a.captureInstant == b.captureInstant
            && (a.motionVideo == nil) == (b.motionVideo == nil)
            && a.capture.time.local == b.capture.time.local && a.screenshot.isScreenshot == b.screenshot.isScreenshot
            && a.liveIdentifier == b.liveIdentifier && a.problems == b.problems && a.cameraCode == b.cameraCode
            && a.isFavorite == b.isFavorite && a.kindSignals == b.kindSignals && a.burstIdentifier == b.burstIdentifier && a.place == b.place
    }
}
