/// `by-camera/MAKE MODEL/`: every photo and video under the camera that took it (`CameraNames`),
/// flat inside, newest first; camera folders by name.
extension LibraryViews {
    public static let byCamera = "by-camera"

    /// The camera folder a photo is listed in, as its `CameraTable` code: a Live Photo's motion
    /// part goes with its still (a clip whose keys name no camera stays beside the photo it belongs to).
    static func cameraFolder(_ i: Int, _ photos: [Photo], _ livePartners: [Int32: Int32]) -> UInt16 {
        if !photos[i].format.isStill, let still = livePartners[Int32(i)] { return photos[Int(still)].cameraCode }
        return photos[i].cameraCode
    }

    /// `by-camera/` of `order` (newest first), which grouping keeps in each folder.
    static func byCameraView(_ photos: [Photo], _ order: [Int], _ livePartners: [Int32: Int32], _ emptyMtime: Timestamp) -> VirtualFolder {
        var byCamera: [UInt16: [Int]] = [:]
        for i in order { byCamera[cameraFolder(i, photos, livePartners), default: []].append(i) }
        return cameraTree(byCamera.map { flatFolder(CameraTable.shared.name($0.key), photos, $0.value, emptyMtime, slot: PhotoSlot.byCamera) },
                          emptyMtime)
    }

    /// `by-camera/` of its camera folders, ordered by name (byte order, as `ls` in the C locale).
    static func cameraTree(_ folders: [VirtualFolder], _ emptyMtime: Timestamp) -> VirtualFolder {
        let sorted = folders.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return VirtualFolder(name: byCamera, entries: .folders(sorted), emptyMtime: emptyMtime)
    }

    /// `by-camera/` with the photos gone taken out of their folders and `added` put in theirs,
    /// or nil when it is to be built again. A folder left empty goes.
    static func updatedByCamera(_ folder: VirtualFolder, _ photos: [Photo], _ changes: PhotoChanges,
                                _ livePartners: [Int32: Int32], _ emptyMtime: Timestamp) -> VirtualFolder? {
        // A Live Photo's still added or changed while its video was not may move that video: built again.
        let added = Set(changes.added)
        guard !changes.added.contains(where: { i in
            photos[i].format.isStill && livePartners[Int32(i)].map { !added.contains(Int($0)) } == true
        }) else { return nil }
        var addedByCamera: [UInt16: [Int]] = [:]
        for i in changes.added { addedByCamera[cameraFolder(i, photos, livePartners), default: []].append(i) }
        var folders: [VirtualFolder] = []
        for camera in folder.subfolders {
            guard case .photos(let entries) = camera.entries else { return nil }
            let more = addedByCamera.removeValue(forKey: CameraTable.shared.code(camera.name)) ?? []
            guard let kept = entries.removing(changes, photos: photos), let merged = kept.adding(more, photos: photos) else { return nil }
            if merged.count > 0 { folders.append(VirtualFolder(name: camera.name, entries: .photos(merged), emptyMtime: emptyMtime)) }
        }
        for (code, members) in addedByCamera {
            folders.append(flatFolder(CameraTable.shared.name(code), photos, members, emptyMtime, slot: PhotoSlot.byCamera))
        }
        return cameraTree(folders, emptyMtime)
    }
}
