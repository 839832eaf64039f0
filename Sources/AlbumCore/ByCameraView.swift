/// `by-camera/MAKE MODEL/`: every photo and video under the camera that took it (`CameraNames`),
/// flat inside, newest first; camera folders by name.
struct ByCameraView: LibraryView {
    var name: String { LibraryViews.byCamera }

    /// The camera folder a photo is listed in, as its `CameraTable` code: a Live Photo's motion
    /// part goes with its still (a clip whose keys name no camera stays beside the photo it belongs to).
    static func cameraFolder(_ i: Int, _ photos: [Photo], _ livePartners: [Int32: Int32]) -> UInt16 {
        if !photos[i].format.isStill, let still = livePartners[Int32(i)] { return photos[Int(still)].cameraCode }
        return photos[i].cameraCode
    }

    /// Every photo but motion photos' videos, grouped by camera, which keeps `order` (newest
    /// first) in each folder.
    func built(_ inputs: ViewInputs, order: [Int]) -> VirtualFolder {
        let photos = inputs.photos
        var byCamera: [UInt16: [Int]] = [:]
        for i in order where !photos[i].isEmbeddedVideo { byCamera[Self.cameraFolder(i, photos, inputs.livePartners), default: []].append(i) }
        return Self.tree(byCamera.map { Self.cameraFolder($0.key, photos, $0.value, inputs.emptyMtime) }, inputs.emptyMtime)
    }

    /// `by-camera/` with the photos gone taken out of their folders and those added put in
    /// theirs, or nil when it is to be built again. A folder left empty goes.
    func updated(_ folder: VirtualFolder, _ inputs: ViewInputs, _ update: ViewUpdate) -> VirtualFolder? {
        let photos = inputs.photos, changes = update.changes, livePartners = inputs.livePartners
        // A Live Photo's still added or changed while its video was not may move that video: built
        // again. (A motion photo's video is in no camera's folder.)
        let added = Set(changes.added)
        guard !changes.added.contains(where: { i in
            photos[i].format.isStill && livePartners[Int32(i)].map { !added.contains(Int($0)) && !photos[Int($0)].isEmbeddedVideo } == true
        }) else { return nil }
        var addedByCamera: [UInt16: [Int]] = [:]
        for i in changes.added where !photos[i].isEmbeddedVideo { addedByCamera[Self.cameraFolder(i, photos, livePartners), default: []].append(i) }
        var folders: [VirtualFolder] = []
        for camera in folder.subfolders {
            guard case .photos(let entries) = camera.entries else { return nil }
            let more = addedByCamera.removeValue(forKey: CameraTable.shared.code(camera.name)) ?? []
            guard let kept = entries.removing(changes, photos: photos), let merged = kept.adding(more, photos: photos) else { return nil }
            if merged.count > 0 { folders.append(VirtualFolder(name: camera.name, entries: .photos(merged), emptyMtime: inputs.emptyMtime)) }
        }
        for (code, members) in addedByCamera { folders.append(Self.cameraFolder(code, photos, members, inputs.emptyMtime)) }
        return Self.tree(folders, inputs.emptyMtime)
    }

    /// One camera's folder of `members` (newest first).
    static func cameraFolder(_ code: UInt16, _ photos: [Photo], _ members: [Int], _ emptyMtime: Timestamp) -> VirtualFolder {
        LibraryViews.flatFolder(CameraTable.shared.name(code), photos, members, emptyMtime, slot: PhotoSlot.byCamera)
    }

    /// `by-camera/` of its camera folders, ordered by name (byte order, as `ls` in the C locale).
    static func tree(_ folders: [VirtualFolder], _ emptyMtime: Timestamp) -> VirtualFolder {
        let sorted = folders.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return VirtualFolder(name: LibraryViews.byCamera, entries: .folders(sorted), emptyMtime: emptyMtime)
    }
}
