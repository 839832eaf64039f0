import AlbumCore

/// What `SimilarFinder` keeps of one hashed still during a pass (24 bytes, no string; kept by its
/// path's key in `KnownPictures`): which file it was made of (`FileStamp.fingerprint`), its dHash
/// and the group the last search put it in.
struct KnownPicture: Sendable {
    /// `group` of a hash no search has seen yet.
    static let unsearched = UInt32.max
    var file: UInt64
    /// The dHash; 0 where `decoded` is false.
    var hash: UInt64
    /// The last search's group: 0 none, 1… a group, `unsearched`.
    var group: UInt32
    /// Whether the picture could be decoded (an undecodable one is not tried again while the file is the same).
    var decoded: Bool

    static func key(_ path: String) -> UInt64 { KnownPictures.key(path) }

    init(_ photo: Photo, hash: UInt64?) {
        file = FileStamp(photo).fingerprint
        self.hash = hash ?? 0
        decoded = hash != nil
        group = Self.unsearched
    }

    init(_ record: SimilarHashRecord) {
        file = record.stamp.fingerprint
        hash = record.hash ?? 0
        decoded = record.hash != nil
        group = record.group ?? Self.unsearched
    }

    /// Whether this stands for `photo`'s file as scanned.
    func holds(_ photo: Photo) -> Bool { file == FileStamp(photo).fingerprint }

    /// Whether the last search put it in a group.
    var wasGrouped: Bool { group != 0 && group != Self.unsearched }

    func record(_ photo: Photo) -> SimilarHashRecord {
        SimilarHashRecord(relativePath: photo.sourcePath, identity: photo.identity, changedWhenRead: photo.changedWhenRead,
                          hash: decoded ? hash : nil, group: group == Self.unsearched ? nil : group)
    }
}

typealias KnownPictures = PathKeyed<KnownPicture>

/// The candidates of one pass (`SimilarGroups.candidates`): their positions in the photos and
/// their paths' keys, side by side, so that a pass keeps no path of its own.
struct PassCandidates {
    let photos: [Photo]
    let chosen: [Int]
    let keys: [UInt64]

    init(_ photos: [Photo]) {
        self.photos = photos
        chosen = SimilarGroups.candidates(photos)
        keys = chosen.map { KnownPicture.key(photos[$0].sourcePath) }
    }

    subscript(c: Int) -> Photo { photos[chosen[c]] }

    var indices: Range<Int> { chosen.indices }

    /// Whether `known` holds candidate `c`'s file as it is.
    func isKnown(_ c: Int, in known: KnownPictures) -> Bool { known[keys[c]]?.holds(self[c]) ?? false }

    /// The record of candidate `c` as `known` holds it, to be written.
    func record(_ c: Int, in known: KnownPictures) -> SimilarHashRecord? { known[keys[c]].map { $0.record(self[c]) } }
}

/// The search of one pass: the candidates' hashes by position, the groups of the last search
/// joined without a search when none of them lost or changed a member, each entry's new group.
struct PassSearch {
    /// Candidates (positions in `PassCandidates`) whose hash is searched, and their hashes.
    private(set) var members: [Int32] = []
    private(set) var hashes: [UInt64] = []
    /// A group of the last search lost or changed a member: every hash is searched.
    private(set) var lost: Bool
    /// The hashes left out as plain pictures, and their stills' count.
    private(set) var plain = PlainPictures()
    /// Candidates of plain pictures that the last search put in a group: they leave it.
    private var leaving: [Int32] = []

    init(_ candidates: PassCandidates, _ known: KnownPictures, lost: Bool) {
        self.lost = lost
        for c in candidates.indices {
            guard let entry = known[candidates.keys[c]] else { continue }
            if entry.decoded, entry.holds(candidates[c]) {
                members.append(Int32(c))
                hashes.append(entry.hash)
            } else if entry.wasGrouped {
                self.lost = true
            }
        }
        leavePlainPictures(candidates, known)
    }

    /// Takes the plain pictures' candidates out of the search (their group is one no person
    /// reviews, and its folder would hold them all); those the last search grouped leave their
    /// group, so every hash is searched.
    private mutating func leavePlainPictures(_ candidates: PassCandidates, _ known: KnownPictures) {
        plain = SimilarGroups.plainPictures(hashes)
        guard !plain.isEmpty else { return }
        var kept = 0
        for p in hashes.indices {
            guard plain.hashes.contains(hashes[p]) else {
                (members[kept], hashes[kept]) = (members[p], hashes[p])
                kept += 1
                continue
            }
            if known[candidates.keys[Int(members[p])]]!.wasGrouped { leaving.append(members[p]) }
        }
        members.removeLast(members.count - kept)
        hashes.removeLast(hashes.count - kept)
        if !leaving.isEmpty { lost = true }
    }

    /// The groups (positions in `hashes`); only the hashes not searched before are searched
    /// unless a group was lost.
    func groups(_ candidates: PassCandidates, _ known: KnownPictures) -> [[Int]] {
        guard !lost else { return SimilarGroups.groups(hashes) }
        var byGroup: [(group: UInt32, at: Int)] = []
        var added: [Int] = []
        for (p, c) in members.enumerated() {
            let group = known[candidates.keys[Int(c)]]!.group
            if group == KnownPicture.unsearched { added.append(p) } else if group > 0 { byGroup.append((group, p)) }
        }
        byGroup.sort { $0.group != $1.group ? $0.group < $1.group : $0.at < $1.at }
        var joined: [[Int]] = []
        for (k, entry) in byGroup.enumerated() {
            if k == 0 || byGroup[k - 1].group != entry.group { joined.append([]) }
            joined[joined.count - 1].append(entry.at)
        }
        return SimilarGroups.groups(hashes, joined: joined, querying: added)
    }

    /// Gives each searched entry its group in `groups` (0: none); the candidates whose group
    /// changed, to be written.
    func regroup(_ groups: [[Int]], _ candidates: PassCandidates, _ known: inout KnownPictures) -> [Int] {
        var group = [UInt32](repeating: 0, count: hashes.count)
        for (g, positions) in groups.enumerated() { for p in positions { group[p] = UInt32(g + 1) } }
        var changed: [Int] = leaving.map(Int.init)
        // (Not searched: a plain picture's still joins the search as a new one when its hash is no longer plain.)
        for c in leaving { known.modify(candidates.keys[Int(c)]) { $0.group = KnownPicture.unsearched } }
        for (p, c) in members.enumerated() {
            known.modify(candidates.keys[Int(c)]) { entry in
                guard entry.group != group[p] else { return }
                entry.group = group[p]
                changed.append(Int(c))
            }
        }
        return changed
    }

    /// Each grouped photo's group number (`SimilarGroups.numbers(of:exact:)`), by path.
    func numbers(_ groups: [[Int]], _ candidates: PassCandidates, exact: [String: UInt32]) -> [String: UInt32] {
        SimilarGroups.numbers(of: groups.map { $0.map { candidates[Int(members[$0])].sourcePath } }, exact: exact)
    }
}
