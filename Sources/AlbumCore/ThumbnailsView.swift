/// `thumbnails/WxH/`: one JPEG per photo (of those with something to render: `Unrenderable`),
/// flat, newest first, named after the photo with `.jpg`. Every size shares one set of names
/// and one order.
struct ThumbnailsView: LibraryView {
    var name: String { LibraryViews.thumbnails }

    /// Whether a photo has a thumbnail entry: something to render, and not a motion photo's
    /// video (its still's thumbnail shows it; it is in no flat view).
    static func hasThumbnail(_ photo: Photo) -> Bool {
        !photo.isEmbeddedVideo && !Unrenderable.any(photo.problems, format: photo.format)
    }

    func built(_ inputs: ViewInputs, order: [Int]) -> VirtualFolder {
        let photos = inputs.photos, boxes = inputs.boxes
        let shared = PhotoEntries(photos: photos, members: order.filter { Self.hasThumbnail(photos[$0]) }, thumbnailBox: boxes[0],
                                  slot: PhotoSlot.thumbnail(0))
        return Self.view(shared, boxes, inputs.emptyMtime)
    }

    /// `thumbnails/` updated in the names and order its sizes share, or nil (its sizes changed too).
    func updated(_ folder: VirtualFolder, _ inputs: ViewInputs, _ update: ViewUpdate) -> VirtualFolder? {
        let photos = inputs.photos, changes = update.changes, boxes = inputs.boxes
        let added = changes.added.filter { Self.hasThumbnail(photos[$0]) }
        guard folder.subfolders.map(\.name) == boxes.map(\.description), case .photos(let entries)? = folder.subfolders.first?.entries,
              let shared = entries.removing(changes, photos: photos)?.adding(added, photos: photos) else { return nil }
        return Self.view(shared, boxes, inputs.emptyMtime)
    }

    /// `thumbnails/` of one folder per size, each of `shared`'s names and order.
    static func view(_ shared: PhotoEntries, _ boxes: [ThumbnailBox], _ emptyMtime: Timestamp) -> VirtualFolder {
        let folders = boxes.enumerated().map { k, box in
            VirtualFolder(name: box.description, entries: .photos(shared.withThumbnailBox(box, slot: PhotoSlot.thumbnail(k))),
                          emptyMtime: emptyMtime)
        }
        return VirtualFolder(name: LibraryViews.thumbnails, entries: .folders(folders), emptyMtime: emptyMtime)
    }
}
