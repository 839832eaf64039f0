import AlbumCore
@testable import AlbumLive
import AlbumSystem
@testable import AlbumVFS
import Foundation
import Glibc
import XCTest

/// The filesystem in POSIX terms, without a mount.
final class AlbumFileSystemTests: XCTestCase {
    var folder: String!
    var fs: AlbumFileSystem!
    var logged: [String] { logBox.withLock { $0 } }
    let logBox = LockedLog()

    override func setUp() {
        folder = NSTemporaryDirectory() + "albumfs-vfs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/a.jpg", contents: Data("AAAA".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/b.png", contents: Data("BB".utf8)))
        let photos = [photo("a.jpg", seconds: 2_000, size: 4), photo("b.png", seconds: 1_000, size: 2, screenshot: true)]
        let box = logBox
        fs = try! AlbumFileSystem(library: LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0))),
                             sourceRoot: folder, owner: Owner(uid: 7, gid: 8), log: { box.append($0) })
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    func photo(_ path: String, seconds: Int64, size: Int64, screenshot: Bool = false) -> Photo {
        let time = CaptureTime(local: Timestamp(seconds: seconds).local(offsetSeconds: 0), utcOffsetSeconds: 0)
        // The file's identity as a scan would record it (an open checks it), where it is there.
        var st = stat()
        let there = folder != nil && stat(folder + "/" + path, &st) == 0
        return Photo(relativePath: path, format: path.lowercased().hasSuffix(".png") ? .png : .jpeg,
                     identity: there ? FileIdentity(inode: UInt64(st.st_ino), size: Int64(st.st_size), mtime: Timestamp(st.st_mtim))
                                     : FileIdentity(inode: 1, size: size, mtime: Timestamp(seconds: 0)),
                     decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                               captureInstant: Timestamp(seconds: seconds),
                                               screenshot: ScreenshotDecision(isScreenshot: screenshot, reason: "t")),
                     changedWhenRead: there ? Timestamp(st.st_ctim) : nil)
    }

    func ino(_ path: String) -> UInt64 {
        var current: UInt64 = 1
        for part in path.split(separator: "/") {
            current = try! fs.lookup(parent: current, name: String(part)).get().inode
        }
        return current
    }

    func testLookupAndErrors() {
        XCTAssertEqual(try fs.lookup(parent: 1, name: "by-date").get().kind, .directory)
        XCTAssertEqual(fs.lookup(parent: 1, name: "nope").failure, .notFound)
        XCTAssertEqual(fs.lookup(parent: ino("screenshots/b.png"), name: "x").failure, .notDirectory)
        XCTAssertEqual(fs.lookup(parent: 1, name: String(repeating: "x", count: 256)).failure, .nameTooLong)
        XCTAssertEqual(fs.lookup(parent: 999_999, name: "x").failure, .notFound)
        XCTAssertEqual(fs.attributes(of: 999_999).failure, .notFound)
    }

    func testAttributes() throws {
        let a = try fs.attributes(of: ino("non-screenshots/a.jpg")).get()
        XCTAssertEqual(a.size, 4)
        XCTAssertEqual(a.permissions, 0o444)
        XCTAssertEqual(a.mtime, Timestamp(seconds: 2_000))
        XCTAssertEqual(a.uid, 7)
        XCTAssertEqual(a.gid, 8)
        let root = try fs.attributes(of: 1).get()
        XCTAssertEqual(root.permissions, 0o555)
        XCTAssertEqual(root.linkCount, 12, "2 and the 10 views: by-date, the 3 flat ones, by-camera, favorites, media-types, places, duplicates, filter")
    }

    func testReaddirOffsetsResumeWhereTheyStopped() throws {
        let h = try fs.openDirectory(1).get()
        defer { fs.releaseDirectory(h) }
        let all = try fs.readDirectory(h, from: 0).get()
        XCTAssertEqual(all.map(\.name), [".", "..", "by-date", "screenshots", "non-screenshots", "videos", "by-camera", "favorites", "media-types", "places", "duplicates", "filter"])
        var names: [String] = []
        var offset = 0
        while true {
            let page = try fs.readDirectory(h, from: offset, limit: 2).get()
            if page.isEmpty { break }
            names += page.map(\.name)
            offset = page.last!.nextOffset
        }
        XCTAssertEqual(names, all.map(\.name))
        XCTAssertEqual(fs.readDirectory(12345, from: 0).failure, .badFileDescriptor)
        XCTAssertEqual(fs.openDirectory(ino("screenshots/b.png")).failure, .notDirectory)
    }

    /// `readdir`'s listing (names, inode numbers, types) is `readdirplus`'s without the
    /// attributes, in every folder of the tree, page by page as from the whole.
    func testNamesAreTheListingWithoutAttributes() throws {
        var folders: [UInt64] = [1], seen = 0
        while let inode = folders.popLast() {
            let h = try fs.openDirectory(inode).get()
            defer { fs.releaseDirectory(h) }
            let full = try fs.readDirectory(h, from: 0).get()
            let names = try fs.readDirectoryNames(h, from: 0).get()
            XCTAssertEqual(names, full.map { DirectoryName(name: $0.name, inode: $0.attributes.inode, kind: $0.attributes.kind, nextOffset: $0.nextOffset) })
            XCTAssertEqual(try fs.readDirectoryNames(h, from: 3, limit: 2).get(), Array(names.dropFirst(3).prefix(2)))
            folders += full.filter { $0.attributes.kind == .directory && $0.name != "." && $0.name != ".." }.map(\.attributes.inode)
            seen += 1
        }
        XCTAssertEqual(seen, 27, "every folder of the tree listed: the root, by-date and its 3, the 3 flat views, by-camera and Unknown, favorites, media-types and its 11 kinds, places, duplicates and its similar/, filter")
        XCTAssertEqual(fs.readDirectoryNames(12345, from: 0).failure, .badFileDescriptor)
    }

    func testReadOriginalAndReleaseClosesIt() throws {
        let h = try fs.open(ino("non-screenshots/a.jpg"), flags: O_RDONLY).get().handle
        XCTAssertEqual(fs.openFileCount, 1)
        var buffer = [UInt8](repeating: 0, count: 10)
        let n = try buffer.withUnsafeMutableBytes { try fs.read(h, at: 1, into: $0).get() }
        XCTAssertEqual(n, 3)
        XCTAssertEqual(Array(buffer.prefix(3)), Array("AAA".utf8))
        fs.release(h)
        XCTAssertEqual(fs.openFileCount, 0)
    }

    /// `open` answers in one value how the kernel caches the file and where its reads run: an
    /// original's pages are kept and its reads wait on SOURCE; a thumbnail's are kept and its
    /// first read renders; `.albumfs/` texts are made at open and read with direct I/O.
    func testOpenAnswersHowTheFileIsCachedAndRead() throws {
        let photos = [photo("a.jpg", seconds: 2_000, size: 4)]
        let settings = ViewSettings(thumbnailBoxes: [.default], withStatus: true, emptyMtime: Timestamp(seconds: 0))
        fs = try AlbumFileSystem(library: LibraryViews.build(photos: photos, settings),
                                 sourceRoot: folder, owner: Owner(uid: 7, gid: 8), log: { _ in })
        let original = try fs.open(ino("non-screenshots/a.jpg"), flags: O_RDONLY).get()
        XCTAssertEqual(original.cache, .keep)
        XCTAssertEqual(original.reads, .source)
        XCTAssertEqual(ReadService(handle: original.handle), .source, "the handle carries it")
        let thumbnail = try fs.open(ino("thumbnails/200x200/a.jpg"), flags: O_RDONLY).get()
        XCTAssertEqual(thumbnail.cache, .keep)
        XCTAssertEqual(thumbnail.reads, .render)
        XCTAssertEqual(ReadService(handle: thumbnail.handle), .render)
        let status = try fs.open(ino(".albumfs/status"), flags: O_RDONLY).get()
        XCTAssertEqual(status.cache, .direct)
        XCTAssertEqual(status.reads, .inline)
        let readme = try fs.open(ino("filter/README.txt"), flags: O_RDONLY).get()
        XCTAssertEqual(readme.cache, .keep)
        XCTAssertEqual(readme.reads, .inline)
        XCTAssertEqual(Set([original, thumbnail, status, readme].map(\.handle)).count, 4)
        for file in [original, thumbnail, status, readme] { fs.release(file.handle) }
        XCTAssertEqual(fs.openFileCount, 0)
        XCTAssertEqual(Set([original, thumbnail, status, readme].map { $0.handle % 16 }).count, 4,
                       "the service's bits leave the handles spread over the table's shards")
    }

    func testOpenErrors() throws {
        XCTAssertEqual(fs.open(ino("non-screenshots/a.jpg"), flags: O_WRONLY).failure, .readOnlyFileSystem)
        XCTAssertEqual(fs.open(ino("non-screenshots/a.jpg"), flags: O_RDWR).failure, .readOnlyFileSystem)
        XCTAssertEqual(fs.open(ino("non-screenshots/a.jpg"), flags: O_RDONLY | O_TRUNC).failure, .readOnlyFileSystem)
        XCTAssertEqual(fs.open(1, flags: O_RDONLY).failure, .isDirectory)
        unlink(folder + "/a.jpg")
        XCTAssertEqual(fs.open(ino("non-screenshots/a.jpg"), flags: O_RDONLY).failure, .notFound)
        XCTAssertEqual(fs.open(ino("by-date/1970/1970-01/1970-01-01/a.jpg"), flags: O_RDONLY).failure, .notFound)
        XCTAssertEqual(logged.count, 1, "a vanished original is logged once: \(logged)")
        // A folder in the original's place is not the file scanned: not found either.
        mkdir(folder + "/a.jpg", 0o755)
        XCTAssertEqual(fs.open(ino("non-screenshots/a.jpg"), flags: O_RDONLY).failure, .notFound)
    }

    /// A listing handle the kernel never got is EBADF; an original whose reads fail (here its
    /// descriptor is a folder's: EISDIR) is EIO, logged once with the photo's path.
    func testUnknownHandlesAndFailingReads() throws {
        XCTAssertEqual(fs.readDirectory(987_654, from: 0).failure, .badFileDescriptor)
        var buffer = [UInt8](repeating: 0, count: 4)
        XCTAssertEqual(buffer.withUnsafeMutableBytes { fs.read(987_654, at: 0, into: $0).failure }, .badFileDescriptor)
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY)
        XCTAssertGreaterThanOrEqual(folderFD, 0)
        let h = fs.files.insert(.original(OpenOriginal(fd: folderFD, relativePath: "a.jpg")))
        for _ in 0..<2 { XCTAssertEqual(buffer.withUnsafeMutableBytes { fs.read(h, at: 0, into: $0).failure }, .ioError) }
        fs.release(h)
        XCTAssertEqual(logged.filter { $0.contains("cannot read a.jpg") }.count, 1, "\(logged)")
    }

    func testExtendedAttributes() throws {
        let i = ino("screenshots/b.png")
        XCTAssertEqual(String(decoding: try fs.extendedAttribute(i, name: "user.albumfs.source").get(), as: UTF8.self), folder + "/b.png")
        XCTAssertEqual(String(decoding: try fs.extendedAttribute(i, name: "user.albumfs.screenshot").get(), as: UTF8.self), "yes (t)")
        XCTAssertEqual(fs.extendedAttribute(i, name: "user.other").failure, .noAttribute)
        XCTAssertEqual(fs.extendedAttribute(i, name: "system.posix_acl_access").failure, .notSupported)
        XCTAssertEqual(fs.extendedAttribute(1, name: "security.selinux").failure, .notSupported)
        XCTAssertEqual(fs.extendedAttribute(999_999, name: "security.selinux").failure, .notFound)
        XCTAssertTrue(try fs.extendedAttributeNames(i).get().contains("user.albumfs.capture_time"))
        XCTAssertEqual(try fs.extendedAttributeNames(1).get(), [])
    }

    func testInodesSurviveAnUpdate() throws {
        let before = ino("non-screenshots/a.jpg")
        fs.update(LibraryViews.build(photos: [photo("c.jpg", seconds: 3_000, size: 1), photo("a.jpg", seconds: 2_000, size: 4)],
                                     ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        XCTAssertEqual(ino("non-screenshots/a.jpg"), before)
        XCTAssertNotEqual(ino("non-screenshots/c.jpg"), before)
    }

    func testAPhotoThatMovesKeepsItsInodeAndTheKernelForgetsTheOldName() throws {
        let day = 86_400 * 365 * 30
        fs.update(LibraryViews.build(photos: [photo("x/a.jpg", seconds: Int64(day), size: 4), photo("y/a.jpg", seconds: Int64(day) + 10, size: 4)],
                                     ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        func dayFolder(_ seconds: Int) -> String {
            let t = Timestamp(seconds: Int64(seconds)).local(offsetSeconds: 0)
            return "by-date/\(t.yearString)/\(t.monthString)/\(t.dayString)"
        }
        let oldDay = dayFolder(day)
        XCTAssertEqual(listing(oldDay).sorted(), ["a.jpg", "a~7f9535.jpg"].sorted())
        let renamedBefore = ino(oldDay + "/a~7f9535.jpg")
        let flatBefore = ino("non-screenshots/a.jpg")
        let dayInode = ino(oldDay)
        // x/a.jpg goes: y/a.jpg takes the plain name (same inode, new name) and moves a day on.
        let changes = fs.update(LibraryViews.build(photos: [photo("y/a.jpg", seconds: Int64(day) + 86_400, size: 4)],
                                                   ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        let newDay = dayFolder(day + 86_400)
        XCTAssertEqual(listing(newDay), ["a.jpg"])
        XCTAssertEqual(ino(newDay + "/a.jpg"), renamedBefore, "a photo's by-date entry keeps its inode when it moves")
        XCTAssertNotEqual(ino("non-screenshots/a.jpg"), flatBefore, "the plain name now shows another photo")
        let removed = Set(changes.removedEntries.map { "\($0.parent)/\($0.name)" })
        XCTAssertTrue(removed.contains("\(dayInode)/a.jpg"), "\(removed)")
        XCTAssertTrue(removed.contains("\(dayInode)/a~7f9535.jpg"), "\(removed)")
        XCTAssertTrue(changes.changedInodes.contains(ino("non-screenshots")))
        XCTAssertTrue(changes.changedInodes.contains(renamedBefore))
        // Unchanged tree: nothing to forget.
        let same = LibraryViews.build(photos: [photo("y/a.jpg", seconds: Int64(day) + 86_400, size: 4)],
                                      ViewSettings(emptyMtime: Timestamp(seconds: 0)))
        XCTAssertTrue(fs.update(same).isEmpty)
        // A rewritten file (new size) at the same place: its inodes change, no entry goes away.
        let rewritten = fs.update(LibraryViews.build(photos: [photo("y/a.jpg", seconds: Int64(day) + 86_400, size: 9)],
                                                     ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        XCTAssertTrue(rewritten.removedEntries.isEmpty)
        XCTAssertEqual(Set(rewritten.changedInodes), [ino(newDay + "/a.jpg"), ino("non-screenshots/a.jpg")])
        XCTAssertEqual(try fs.attributes(of: ino("non-screenshots/a.jpg")).get().size, 9)
        // Rewritten in place (inode, size, mtime and date as they were): read again, it has another
        // ctime when read, and the kernel must drop what it holds of its bytes.
        var inPlace = photo("y/a.jpg", seconds: Int64(day) + 86_400, size: 9)
        inPlace = Photo(relativePath: inPlace.relativePath, format: inPlace.format, identity: inPlace.identity, decisions: inPlace.decisions,
                        changedWhenRead: Timestamp(seconds: 1_700_000_000))
        let readAgain = fs.update(LibraryViews.build(photos: [inPlace], ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        XCTAssertTrue(readAgain.removedEntries.isEmpty)
        XCTAssertEqual(Set(readAgain.changedInodes), [ino(newDay + "/a.jpg"), ino("non-screenshots/a.jpg")])
        XCTAssertTrue(fs.update(LibraryViews.build(photos: [inPlace],
                                                   ViewSettings(emptyMtime: Timestamp(seconds: 0)))).isEmpty, "the same ctime: nothing")
    }

    /// A big tree's photos are compared in parts side by side (`TreeChanges.parallelFrom`): what
    /// went away and what changed is found in every part, and nothing else.
    func testABigTreesChangesAreFoundInEveryPart() throws {
        let count = TreeChanges.parallelFrom + 2_000
        let photos = (0..<count).map { photo("p\($0).jpg", seconds: 1_000_000 + Int64($0), size: 4) }
        fs.update(LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        let gone = Set(stride(from: 0, to: count, by: 97)), resized = Set(stride(from: 5, to: count, by: 89))
        let inodesBefore = (0..<count).map { ino("non-screenshots/p\($0).jpg") }
        let next = photos.indices.filter { !gone.contains($0) }.map { i in
            resized.contains(i) ? photo("p\(i).jpg", seconds: 1_000_000 + Int64(i), size: 9) : photos[i]
        }
        let changes = fs.update(LibraryViews.build(photos: next, ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        let flat = ino("non-screenshots")
        let removedFlat = Set(changes.removedEntries.filter { $0.parent == flat }.map(\.name))
        XCTAssertEqual(removedFlat, Set(gone.map { "p\($0).jpg" }))
        let changed = Set(changes.changedInodes)
        XCTAssertEqual(changes.changedInodes.count, changed.count, "each inode once")
        for i in resized.subtracting(gone) { XCTAssertTrue(changed.contains(inodesBefore[i]), "p\(i).jpg rewritten") }
        for i in gone { XCTAssertTrue(changed.contains(inodesBefore[i]), "p\(i).jpg gone") }
        let untouched = Set(0..<count).subtracting(gone).subtracting(resized)
        XCTAssertTrue(untouched.allSatisfy { !changed.contains(inodesBefore[$0]) })
    }

    /// Every entry of a tree: folder inode → name → inode.
    func entries(_ table: NodeTable) -> [UInt64: [String: UInt64]] {
        var out: [UInt64: [String: UInt64]] = [:]
        for (inode, folder) in table.folders {
            var names: [String: UInt64] = [:]
            for position in 0..<folder.folder.count {
                let child = table.child(of: folder, at: position)
                names[child.name] = child.inode
            }
            out[inode] = names
        }
        return out
    }

    /// Photos changed as a scan changes them (one array: added at the end, changed in place, a
    /// removed one's place taken by the last; unchanged ones the very same values, as the
    /// state's array shares them), names clashing across folders: after every update, each entry
    /// the kernel may hold whose name now stands for nothing or for another inode is among the
    /// entries to forget, each folder whose listing changed and each file that changed among the
    /// inodes to forget. A model of what the kernel must be told, not of how it is found.
    func testTheKernelIsToldOfEveryEntryThatWentOrChangedAcrossRandomChanges() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        let day: Int64 = 86_400 * 365 * 30
        var serial = 0
        func newPhoto() -> Photo {
            serial += 1
            let name = ["x", "y", "z"][random(3)] + "/IMG_\(random(6))" + (random(5) == 0 ? ".png" : ".JPG")
            return photo(name + (random(4) == 0 ? "-\(serial)" : ""), seconds: day + Int64(random(4)) * 86_400 + Int64(serial), size: 4)
        }
        var photos = (0..<40).map { _ in newPhoto() }
        fs.update(LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        for step in 0..<80 {
            switch random(4) {
            case 0: photos.append(newPhoto())
            case 1 where photos.count > 5:
                let hole = random(photos.count)
                let last = photos.removeLast()
                if hole < photos.count { photos[hole] = last }
            case 2:
                let i = random(photos.count)
                photos[i] = photo(photos[i].relativePath, seconds: day + Int64(random(4)) * 86_400, size: photos[i].identity.size)
            default:
                let i = random(photos.count)
                photos[i] = photo(photos[i].relativePath, seconds: photos[i].captureInstant.seconds, size: photos[i].identity.size + 1)
            }
            let before = fs.current.table
            let changes = fs.update(LibraryViews.build(photos: photos, ViewSettings(emptyMtime: Timestamp(seconds: 0))))
            let after = fs.current.table
            let removed = Set(changes.removedEntries.map { "\($0.parent)/\($0.name)" }), changed = Set(changes.changedInodes)
            let old = entries(before), new = entries(after)
            for (parent, names) in old {
                guard let now = new[parent] else { continue }  // vacuous-ok: a folder gone is checked through removedEntries of its parent
                if now != names { XCTAssertTrue(changed.contains(parent), "step \(step): folder \(parent)") }
                for (name, inode) in names where now[name] != inode {
                    XCTAssertTrue(removed.contains("\(parent)/\(name)"), "step \(step): \(name) in \(parent)")
                }
            }
            for p0 in before.photos.indices {
                guard let p1 = after.photo(number: before.numberOfPhoto[p0]), after.photos[p1].identity != before.photos[p0].identity else { continue }  // vacuous-ok: only photos gone or changed owe a changed inode
                XCTAssertTrue(changed.contains(before.inode(ofPhoto: p0, slot: PhotoSlot.byDate)), "step \(step): \(before.photos[p0].relativePath)")
            }
        }
    }

    func testAPhotoWhoseFolderWasRenamedKeepsItsInodesAndTheKernelHasNothingToForget() throws {
        fs.update(LibraryViews.build(photos: [photo("A/a.jpg", seconds: 2_000, size: 4), photo("b.png", seconds: 1_000, size: 2)],
                                     ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        let flat = ino("non-screenshots/a.jpg")
        let dated = ino(fs.current.table.canonicalPath(ofPhoto: 0)!)
        let before = fs.current
        let changes = fs.update(LibraryViews.build(photos: [photo("B/a.jpg", seconds: 2_000, size: 4), photo("b.png", seconds: 1_000, size: 2)],
                                                   ViewSettings(emptyMtime: Timestamp(seconds: 0))),
                                renamed: [FileMove(from: "A/a.jpg", to: "B/a.jpg", identity: .unknown)])
        XCTAssertTrue(changes.isEmpty, "\(changes.changedInodes) \(changes.removedEntries)")
        XCTAssertEqual(ino("non-screenshots/a.jpg"), flat)
        XCTAssertEqual(ino(fs.current.table.canonicalPath(ofPhoto: 0)!), dated)
        XCTAssertEqual(fs.shownPhoto("B/a.jpg")?.relativePath, "B/a.jpg")
        XCTAssertNil(fs.shownPhoto("A/a.jpg"), "the old path shows nothing, though its number lives on")
        XCTAssertNil(before.table.photo(source: "B/a.jpg"), "nor does the tree before show the new path")
        // Found under a new path without the scan saying so (read again): new inodes.
        fs.update(LibraryViews.build(photos: [photo("C/a.jpg", seconds: 2_000, size: 4), photo("b.png", seconds: 1_000, size: 2)],
                                     ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        XCTAssertNotEqual(ino("non-screenshots/a.jpg"), flat)
    }

    /// An open whose file is not at its path while a change is pending waits for the tree that
    /// shows where it went (its folder renamed: the same inode) and opens it there; with nothing
    /// pending, or the photo gone from the new tree, it answers ENOENT.
    func testAnOpenWaitsForTheTreeThatShowsWhereItsFileWent() throws {
        fs.update(LibraryViews.build(photos: [photo("A/a.jpg", seconds: 2_000, size: 4)], ViewSettings(emptyMtime: Timestamp(seconds: 0))))
        XCTAssertEqual(mkdir(folder + "/A", 0o755), 0)
        XCTAssertEqual(rename(folder + "/a.jpg", folder + "/A/a.jpg"), 0)
        let inode = ino("non-screenshots/a.jpg")
        XCTAssertEqual(rename(folder + "/A", folder + "/B"), 0)
        let pending = PendingChanges()
        fs.follow(pending)
        XCTAssertEqual(fs.open(inode, flags: O_RDONLY).failure, .notFound, "nothing pending: no wait")
        let change = pending.report()
        XCTAssertTrue(pending.any)
        let fs = self.fs!, moved = photo("B/a.jpg", seconds: 2_000, size: 4)
        let published = DispatchSemaphore(value: 0)
        let publisher = Thread {
            usleep(200_000)
            fs.update(LibraryViews.build(photos: [moved], ViewSettings(emptyMtime: Timestamp(seconds: 0))),
                      renamed: [FileMove(from: "A/a.jpg", to: "B/a.jpg", identity: .unknown)])
            pending.treePublished()
            pending.shown(through: change)
            published.signal()
        }
        publisher.start()
        let h = try fs.open(inode, flags: O_RDONLY).get().handle
        var buffer = [UInt8](repeating: 0, count: 8)
        let n = try buffer.withUnsafeMutableBytes { try fs.read(h, at: 0, into: $0).get() }
        XCTAssertEqual(Array(buffer.prefix(n)), Array("AAAA".utf8))
        fs.release(h)
        // (The open goes on as soon as the tree is published; the publisher then says what it shows.)
        XCTAssertEqual(published.wait(timeout: .now() + 10), .success)
        XCTAssertFalse(pending.any)
        // Deleted: the next tree drops it, and the open answers ENOENT then.
        XCTAssertEqual(unlink(folder + "/B/a.jpg"), 0)
        let removal = pending.report()
        let dropper = Thread {
            usleep(100_000)
            fs.update(LibraryViews.build(photos: [], ViewSettings(emptyMtime: Timestamp(seconds: 0))))
            pending.treePublished()
            pending.shown(through: removal)
        }
        dropper.start()
        XCTAssertEqual(fs.open(inode, flags: O_RDONLY).failure, .notFound)
        XCTAssertEqual(fs.openFileCount, 0)
    }

    /// A photo's file counts as present only where it is beneath SOURCE through no link: with
    /// its folder swapped for a link to a folder outside SOURCE that holds the same file, the file
    /// is missing (an open then waits for the tree that shows where it went, as for a file gone).
    func testAFileReachedThroughALinkOutOfSourceIsMissing() throws {
        let outside = folder + "-outside"
        try FileManager.default.createDirectory(atPath: folder + "/A", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/A/c.jpg", contents: Data("CC".utf8)))
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let c = photo("A/c.jpg", seconds: 3_000, size: 2)
        XCTAssertFalse(fs.sources.isMissing(c))
        XCTAssertTrue(fs.sources.isMissing(photo("A/gone.jpg", seconds: 3_000, size: 2)))

        XCTAssertEqual(mkdir(outside, 0o755), 0)
        XCTAssertEqual(rename(folder + "/A", outside + "/A"), 0)
        XCTAssertEqual(symlink(outside + "/A", folder + "/A"), 0)
        XCTAssertEqual(access(folder + "/A/c.jpg", F_OK), 0, "the file is there through the link")
        XCTAssertTrue(fs.sources.isMissing(c), "a folder on the way that is a link out of SOURCE")

        XCTAssertEqual(symlink(outside + "/A/c.jpg", folder + "/d.jpg"), 0)
        XCTAssertTrue(fs.sources.isMissing(photo("d.jpg", seconds: 3_000, size: 2)), "the file's own name a link")
        XCTAssertFalse(fs.sources.isMissing(photo("a.jpg", seconds: 2_000, size: 4)))
    }

    func listing(_ path: String) -> [String] {
        guard let h = try? fs.openDirectory(ino(path)).get() else { return [] }
        defer { fs.releaseDirectory(h) }
        return (try? fs.readDirectory(h, from: 0).get().map(\.name).filter { $0 != "." && $0 != ".." }) ?? []
    }

    func testAccessFollowsThePermissionBits() {
        let file = ino("non-screenshots/a.jpg")
        XCTAssertNil(fs.checkAccess(file, mask: R_OK).failure)
        XCTAssertEqual(fs.checkAccess(file, mask: W_OK).failure, .readOnlyFileSystem)
        XCTAssertEqual(fs.checkAccess(file, mask: X_OK).failure, .accessDenied)
        XCTAssertNil(fs.checkAccess(ino("non-screenshots"), mask: R_OK | X_OK).failure)
        XCTAssertEqual(fs.checkAccess(ino("non-screenshots"), mask: W_OK).failure, .readOnlyFileSystem)
        XCTAssertEqual(fs.checkAccess(999_999, mask: R_OK).failure, .notFound)
    }

    /// The figures of the filesystem SOURCE is on (not the library's size with nothing free,
    /// which a desktop reads as a full disk), with albumfs's name limit; zeros when SOURCE is gone.
    func testStatisticsAreThoseOfTheSourcesFilesystem() throws {
        let s = fs.statistics()
        XCTAssertEqual(s.nameMax, 255)
        var st = statvfs()
        XCTAssertEqual(statvfs(fs.sourceRoot, &st), 0)
        XCTAssertEqual(s.blockSize, UInt64(st.f_frsize))
        XCTAssertEqual(s.blocks, UInt64(st.f_blocks))
        XCTAssertGreaterThan(s.blocks, 0)
        XCTAssertLessThanOrEqual(s.availableBlocks, s.freeBlocks)
        XCTAssertEqual(s.files, UInt64(st.f_files))
        let gone = try AlbumFileSystem(library: LibraryViews.build(photos: [], ViewSettings(emptyMtime: Timestamp(seconds: 0))),
                                       sourceRoot: "/nonexistent-albumfs-source", owner: fs.owner, log: { _ in })
        XCTAssertEqual(gone.statistics(), FileSystemStatistics(blockSize: 4096, blocks: 0, freeBlocks: 0, availableBlocks: 0, files: 0,
                                                               freeFiles: 0, nameMax: 255))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}

final class LockedLog: @unchecked Sendable {
    private var lines: [String] = []
    private let lock = NSLock()
    func append(_ s: String) { lock.lock(); lines.append(s); lock.unlock() }
    func withLock<T>(_ body: ([String]) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(lines) }
}

/// A slot's photo-to-folder table: a map while few photos are in it, the same answers once dense.
final class SlotFoldersTests: XCTestCase {
    func testAFewPhotosAreMappedAndManyTurnItDenseWithTheSameAnswers() {
        var slot = SlotFolders()
        XCTAssertTrue(slot.isEmpty)
        slot.set(5, 2, photoCount: 80, sparse: true)
        slot.set(70, 3, photoCount: 80, sparse: true)
        XCTAssertFalse(slot.isEmpty)
        XCTAssertEqual([slot[5], slot[70], slot[6]], [2, 3, .max])
        for p in 10..<20 { slot.set(p, 4, photoCount: 80, sparse: true) }  // past an eighth: dense
        XCTAssertEqual([slot[5], slot[70], slot[6], slot[15]], [2, 3, .max, 4])
        var dense = SlotFolders()
        dense.set(1, 0, photoCount: 3, sparse: false)
        XCTAssertEqual([dense[0], dense[1], dense[2]], [.max, 0, .max])
    }
}
