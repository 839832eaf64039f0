/// Android motion photos: a still whose file holds a short video after its image (Pixel,
/// Samsung). The video is shown beside its still in `by-date/` as a file of its own, `STEM.mp4`,
/// whose bytes are that part of the still's file; it is in no flat view, and the two name each
/// other as a Live Photo's still and video do.
///
/// The video's entry is a `Photo` made from its still when the views are built: its path is the
/// still's path and its own name beneath it (`IMG.jpg/IMG.mp4`, which no file can have, so it
/// is numbered and named as no other file is), its identity the still's (the file opened and
/// checked is the still's), its time the still's, its bytes `motionVideo`.
public enum MotionPhotos {
    /// The reason its screenshot attribute gives.
    public static let screenshotReason = "motion photo's video"

    /// The video entry of a still holding one (nil for any other photo).
    public static func video(of still: Photo) -> Photo? {
        guard still.format.isStill, let range = still.motionVideo else { return nil }
        let name = EntryNames.replacingExtension(of: still.fileName, with: ".mp4")
        let decisions = PhotoDecisions(capture: still.capture, captureInstant: still.captureInstant,
                                       screenshot: ScreenshotDecision(isScreenshot: false, reason: screenshotReason), orientation: 1, problems: [])
        var video = Photo(relativePath: still.relativePath + "/" + name, format: .video, identity: still.identity,
                          decisions: decisions, changedWhenRead: still.changedWhenRead, access: still.access)
        video.motionVideo = range
        return video
    }

    /// How many of `photos` are files: all but the videos `adding` puts after them.
    public static func fileCount(_ photos: [Photo]) -> Int {
        photos.count - photos.lazy.reversed().prefix(while: \.isEmbeddedVideo).count
    }

    /// Where the photo at `position` of one array of photos with their videos after them is in
    /// another if it did not move: at the same position among the files, or among the videos
    /// (a file added or removed moves every video by one). `files`: the two arrays' file counts.
    public static func counterpart(of position: Int, files: (from: Int, to: Int)) -> Int {
        position < files.from ? position : position - files.from + files.to
    }

    /// `photos` with the video entry of each motion photo after them, and each still's and
    /// video's partner (both ways). The array is copied only when there is a video to add.
    public static func adding(to photos: [Photo]) -> (photos: [Photo], partners: [Int32: Int32]) {
        var videos: [(still: Int, video: Photo)] = []
        for i in photos.indices where photos[i].motionVideo != nil && !photos[i].isEmbeddedVideo {
            if let video = video(of: photos[i]) { videos.append((i, video)) }
        }
        guard !videos.isEmpty else { return (photos, [:]) }
        var all = photos
        all.reserveCapacity(photos.count + videos.count)
        var partners: [Int32: Int32] = [:]
        for (still, video) in videos {
            partners[Int32(still)] = Int32(all.count)
            partners[Int32(all.count)] = Int32(still)
            all.append(video)
        }
        return (all, partners)
    }
}

/// The photos the views are made of and how they pair: the scanned photos, then each motion
/// photo's video (`MotionPhotos.adding`), Live Photos paired, and each motion photo paired with
/// its video. `build` and `ViewsUpdate` both start from it, so both pair alike.
struct PairedPhotos {
    let photos: [Photo]
    /// Live Photos' stills and videos alone (`LivePhotos.partners`): no motion photo is among them.
    let live: [Int32: Int32]
    /// `live` and the motion photos' pairs, both ways: what `Library.livePartners` holds.
    let partners: [Int32: Int32]

    init(scanned: [Photo]) {
        let (photos, motion) = MotionPhotos.adding(to: scanned)
        let live = LivePhotos.partners(photos)
        self.photos = photos
        self.live = live
        partners = motion.isEmpty ? live : live.merging(motion) { a, _ in a }
    }

    /// A library's Live Photo pairs without its motion photos' (`live` of the photos it shows).
    static func live(of library: Library) -> [Int32: Int32] {
        guard library.filePhotoCount < library.photos.count else { return library.livePartners }
        return library.livePartners.filter { !library.photos[Int($0.key)].isEmbeddedVideo && !library.photos[Int($0.value)].isEmbeddedVideo }
    }
}
