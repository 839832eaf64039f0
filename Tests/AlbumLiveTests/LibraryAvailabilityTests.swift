import AlbumCore
import AlbumSystem
@testable import AlbumLive
import Foundation
import XCTest

final class LibraryAvailabilityTests: XCTestCase {
    /// An index that only remembers the library's device.
    final class DeviceStore: FileIndexStore, @unchecked Sendable {
        let device = Locked<UInt64?>(nil)
        func loadAll() throws(Errno) -> [IndexedFile] { [] }
        func forEach(_ body: (IndexedFile) -> Void) throws(Errno) {}
        func save(upserts: [IndexedFile], removals: [String]) throws(Errno) {}
        func save(moves: [FileMove]) throws(Errno) {}
        func files(sameAs files: [(path: String, identity: FileIdentity)]) throws(Errno) -> [IndexedFile?] { files.map { _ in nil } }
        func libraryDevice() throws(Errno) -> UInt64? { device.withLock { $0 } }
        func saveLibraryDevice(_ device: UInt64) throws(Errno) { self.device.withLock { $0 = device } }
    }

    var folder: String!
    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "albumfs-availability-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func testTransitionsAreLoggedOnceAndTheDeviceKept() throws {
        let store = DeviceStore()
        let lines = Locked<[String]>([])
        var a = LibraryAvailability(root: folder, index: store, log: { line in lines.withLock { $0.append(line) } })
        XCTAssertNil(a.diskNotMounted(), "no device known yet: nothing to compare")
        a.note(listed: true, why: "")
        var st = stat()
        XCTAssertEqual(stat(folder, &st), 0)
        XCTAssertEqual(store.device.withLock { $0 }, UInt64(st.st_dev), "the listed folder's device goes to the index")
        a.note(listed: false, why: "cannot list folder: No such file or directory")
        a.note(listed: false, why: "cannot list folder: No such file or directory")
        XCTAssertFalse(a.isAvailable)
        a.note(listed: true, why: "")
        XCTAssertEqual(lines.withLock { $0 }, [
            "albumfs: warning: \(folder!): cannot list folder: No such file or directory; the views keep what they showed until it is back",
            "albumfs: \(folder!) can be listed again; the views follow it",
        ])
    }

    /// An empty folder on another device than the index recorded is a disk not mounted; a folder
    /// with anything in it, or on the recorded device, is not.
    func testAnEmptyFolderOfAnotherDeviceIsADiskNotMounted() throws {
        let store = DeviceStore()
        var st = stat()
        XCTAssertEqual(stat(folder, &st), 0)
        try store.saveLibraryDevice(UInt64(st.st_dev) &+ 1)
        let a = LibraryAvailability(root: folder, index: store, log: { _ in })
        XCTAssertEqual(a.diskNotMounted(), "the library's disk is not mounted (an empty folder of another filesystem is there)")
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/.hidden", contents: nil))
        XCTAssertNil(a.diskNotMounted(), "not empty: another library, scanned as it is")
        try store.saveLibraryDevice(UInt64(st.st_dev))
        unlink(folder + "/.hidden")
        XCTAssertNil(LibraryAvailability(root: folder, index: store, log: { _ in }).diskNotMounted(), "the same device: an emptied library")
    }
}
