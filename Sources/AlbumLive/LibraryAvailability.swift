import AlbumCore
import AlbumSystem
import Glibc

/// Whether the library's own folder can be scanned, and the one line to log when that changes.
///
/// The folder gone or unreadable is found by the walk (it cannot list it). What no listing tells
/// is the folder a disk leaves behind when it is unmounted: an empty folder, on another device
/// than the one the library was found on. That device is kept in the index, so a mount made
/// while the disk is still unplugged knows it too. Either way the library is *unavailable*: the
/// views and the index keep what they had (docs/status.md).
public struct LibraryAvailability {
    public let root: String
    private let index: FileIndexStore?
    private let log: @Sendable (String) -> Void
    /// The library folder's device when a scan last listed it.
    private var device: UInt64?
    public private(set) var isAvailable = true

    public init(root: String, index: FileIndexStore?, log: @escaping @Sendable (String) -> Void) {
        self.root = root
        self.index = index
        self.log = log
        device = (try? index?.libraryDevice()) ?? nil
    }

    /// Why the library cannot be scanned now although its folder is there, or nil.
    public func diskNotMounted() -> String? {
        guard let device else { return nil }
        var st = stat()
        guard stat(root, &st) == 0, UInt64(st.st_dev) != device, let dir = opendir(root) else { return nil }
        defer { closedir(dir) }
        guard folderIsEmpty(dir) else { return nil }
        return "the library's disk is not mounted (an empty folder of another filesystem is there)"
    }

    /// Records whether a scan could list the library's folder (`why` not, when it could not):
    /// a warning when it cannot any more, a line when it can again; the device of a listed
    /// folder goes to the index.
    public mutating func note(listed: Bool, why: String) {
        let was = isAvailable
        isAvailable = listed
        if listed {
            var st = stat()
            if stat(root, &st) == 0, device != UInt64(st.st_dev) {
                device = UInt64(st.st_dev)
                do { try index?.saveLibraryDevice(UInt64(st.st_dev)) } catch {
                    log("albumfs: warning: the index cannot be written: \(error)")
                }
            }
            if !was { log("albumfs: \(root) can be listed again; the views follow it") }
        } else if was {
            log("albumfs: warning: \(root): \(why); the views keep what they showed until it is back")
        }
    }
}
