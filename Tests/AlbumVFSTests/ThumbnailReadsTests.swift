import AlbumCore
import AlbumSystem
@testable import AlbumVFS
import Dispatch
import Foundation
import Glibc
import Synchronization
import XCTest

/// `ThumbnailReads`: the kernel is told of a thumbnail that left its listing from the notifier's
/// pool, never from the thread whose read failed, and only for a failure from the content.
///
/// A thumbnail whose render failed from its photo's content leaves the tree that is published
/// next (with the failed read), and comes back with a tree where the photo changed: the views
/// never ask the thumbnail service per lookup.
final class ThumbnailReadsTests: XCTestCase {
    /// The calling thread's name (`/proc/self/task/TID/comm`).
    static func threadName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "(unreadable)"
        return comm.trimmingCharacters(in: .newlines)
    }

    func photo(_ path: String, seconds: Int64) -> Photo {
        let time = CaptureTime(local: Timestamp(seconds: seconds).local(offsetSeconds: 0), utcOffsetSeconds: 0)
        return Photo(relativePath: path, format: .jpeg, identity: FileIdentity(inode: UInt64(seconds), size: 10, mtime: Timestamp(seconds: 0)),
                     decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                               captureInstant: Timestamp(seconds: seconds),
                                               screenshot: ScreenshotDecision(isScreenshot: false, reason: "t")))
    }

    func testTheKernelIsToldFromThePoolThatAThumbnailLeftItsListing() throws {
        let thumbnails = FailingThumbnails()
        let library = LibraryViews.build(photos: [photo("good.jpg", seconds: 2_000), photo("bad.jpg", seconds: 1_000)],
                                         ViewSettings(thumbnailBoxes: [.default], emptyMtime: Timestamp(seconds: 0)))
        let fs = try AlbumFileSystem(library: library, sourceRoot: "/nowhere",
                                     owner: Owner(uid: 7, gid: 8), services: FileSystemServices(thumbnails: thumbnails), log: { _ in })
        let pool = WorkerPool(name: "albumfs-notice", width: 1, idleSeconds: nil)
        let told = Locked<[(changes: TreeChanges, thread: String)]>([])
        let arrived = DispatchSemaphore(value: 0)
        fs.setInvalidator(pool: pool) { changes in
            told.withLock { $0.append((changes, Self.threadName())) }
            arrived.signal()
        }
        let box = try fs.lookup(parent: try fs.lookup(parent: 1, name: "thumbnails").get().inode, name: "200x200").get().inode
        var buffer = [UInt8](repeating: 0, count: 8)
        let good = try fs.open(try fs.lookup(parent: box, name: "good.jpg").get().inode, flags: O_RDONLY).get()
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try fs.read(good.handle, at: 0, into: $0).get() }, 3)
        let bad = try fs.open(try fs.lookup(parent: box, name: "bad.jpg").get().inode, flags: O_RDONLY).get()
        XCTAssertEqual(buffer.withUnsafeMutableBytes { fs.read(bad.handle, at: 0, into: $0).failure }, .ioError)
        XCTAssertEqual(arrived.wait(timeout: .now() + 10), .success, "the kernel was told")
        // (The pool runs one job at a time, in order: once a job queued now has run, nothing else
        // was queued before it.)
        let drained = DispatchSemaphore(value: 0)
        pool.submit(.interactive) { drained.signal() }
        XCTAssertEqual(drained.wait(timeout: .now() + 10), .success)
        let notices = told.withLock { $0 }
        XCTAssertEqual(notices.count, 1, "one notice: the good thumbnail's read told nothing")
        XCTAssertEqual(notices.first?.changes.removedEntries.map(\.parent), [box])
        XCTAssertEqual(notices.first?.changes.removedEntries.map(\.name), ["bad.jpg"])
        XCTAssertEqual(notices.first?.changes.changedInodes, [box])
        XCTAssertEqual(notices.first?.thread, "albumfs-notice", "told from the pool")
        XCTAssertNotEqual(Self.threadName(), "albumfs-notice")
        fs.release(good.handle)
        fs.release(bad.handle)
    }

    /// While the library's storage is stalled a thumbnail handle whose bytes are made serves them,
    /// and one not made yet answers EIO without a render (which would wait on the storage); the
    /// handle says where its reads run (`ReadService.render`) whether its bytes are made or not.
    func testWhileTheStorageIsStalledOnlyThumbnailsMadeAlreadyAreRead() throws {
        let thumbnails = FailingThumbnails()
        let fs = try AlbumFileSystem(library: library(badSize: 20), sourceRoot: "/nowhere", owner: Owner(uid: 7, gid: 8),
                                     services: FileSystemServices(thumbnails: thumbnails), log: { _ in })
        let box = try fs.lookup(parent: try fs.lookup(parent: 1, name: "thumbnails").get().inode, name: "200x200").get().inode
        let made = try fs.open(try fs.lookup(parent: box, name: "good.jpg").get().inode, flags: O_RDONLY).get()
        let notMade = try fs.open(try fs.lookup(parent: box, name: "good.jpg").get().inode, flags: O_RDONLY).get()
        var buffer = [UInt8](repeating: 0, count: 8)
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try fs.read(made.handle, at: 0, into: $0).get() }, 3)
        XCTAssertEqual(thumbnails.renders.load(ordering: .relaxed), 1)
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try fs.read(made.handle, at: 1, into: $0, storageStalled: true).get() }, 2)
        XCTAssertEqual(Array(buffer.prefix(2)), [2, 3])
        XCTAssertEqual(buffer.withUnsafeMutableBytes { fs.read(notMade.handle, at: 0, into: $0, storageStalled: true).failure }, .ioError)
        XCTAssertEqual(thumbnails.renders.load(ordering: .relaxed), 1, "no render while stalled")
        XCTAssertEqual(made.reads, .render)
        XCTAssertEqual(ReadService(handle: made.handle), .render, "made or not, a thumbnail's handle reads on the pool")
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try fs.read(notMade.handle, at: 0, into: $0).get() }, 3, "rendered once the storage answers")
        XCTAssertEqual(thumbnails.renders.load(ordering: .relaxed), 2)
        fs.release(made.handle)
        fs.release(notMade.handle)
        XCTAssertEqual(fs.openFileCount, 0)
    }

    /// Fails every thumbnail of `bad.jpg` from its content, and counts what it is asked.
    final class FailingThumbnails: ThumbnailProvider, Sendable {
        let failed = Locked<[UnrenderablePhoto]>([])
        let asked = Atomic<Int>(0)
        /// Signalled at each `unrenderable()`: a test knows the hiding has begun.
        let asking = DispatchSemaphore(value: 0)
        var boxes: [ThumbnailBox] { [.default] }
        var renderAhead: Int { 0 }
        func size(for box: ThumbnailBox) -> Int64 { 4321 }
        func prepare(_ photo: Photo, sourceRoot: String, box: ThumbnailBox) {}
        func unrenderable() -> [UnrenderablePhoto] {
            asked.add(1, ordering: .relaxed)
            asking.signal()
            return failed.withLock { $0 }
        }
        /// Thumbnails asked for (renders).
        let renders = Atomic<Int>(0)
        func thumbnail(of photo: Photo, sourceRoot: String, box: ThumbnailBox) -> Result<[UInt8], Errno> {
            renders.add(1, ordering: .relaxed)
            guard photo.relativePath == "bad.jpg" else { return .success([1, 2, 3]) }
            failed.withLock { $0 = [UnrenderablePhoto(relativePath: photo.relativePath, identity: photo.identity)] }
            return .failure(.ioError)
        }
    }

    func photo(_ path: String, seconds: Int64, size: Int64) -> Photo {
        let time = CaptureTime(local: Timestamp(seconds: seconds).local(offsetSeconds: 0), utcOffsetSeconds: 0)
        return Photo(relativePath: path, format: .jpeg, identity: FileIdentity(inode: UInt64(seconds), size: size, mtime: Timestamp(seconds: 0)),
                     decisions: PhotoDecisions(capture: CaptureDecision(time: time, source: .exifDateTimeOriginal),
                                               captureInstant: Timestamp(seconds: seconds),
                                               screenshot: ScreenshotDecision(isScreenshot: false, reason: "t")))
    }

    func library(badSize: Int64) -> Library {
        LibraryViews.build(photos: [photo("good.jpg", seconds: 2_000, size: 10), photo("bad.jpg", seconds: 1_000, size: badSize)],
                           ViewSettings(thumbnailBoxes: [.default], emptyMtime: Timestamp(seconds: 0)))
    }

    func listing(_ fs: AlbumFileSystem, _ folder: UInt64) throws -> [String] {
        let h = try fs.openDirectory(folder).get()
        defer { fs.releaseDirectory(h) }
        return try fs.readDirectoryNames(h, from: 0).get().map(\.name)
    }

    func testAThumbnailThatFailedLeavesTheNextTreeAndComesBackWhenItsPhotoChanges() throws {
        let thumbnails = FailingThumbnails()
        let fs = try AlbumFileSystem(library: library(badSize: 20), sourceRoot: "/nowhere", owner: Owner(uid: 7, gid: 8),
                                     services: FileSystemServices(thumbnails: thumbnails), log: { _ in })
        let boxFolder = try fs.lookup(parent: try fs.lookup(parent: 1, name: "thumbnails").get().inode, name: "200x200").get().inode
        let bad = try fs.lookup(parent: boxFolder, name: "bad.jpg").get()
        XCTAssertEqual(bad.size, 4321)
        let askedAtStart = thumbnails.asked.load(ordering: .relaxed)
        for _ in 0..<5 {
            _ = try fs.lookup(parent: boxFolder, name: "bad.jpg").get()
            _ = try fs.attributes(of: bad.inode).get()
        }
        XCTAssertEqual(try listing(fs, boxFolder), [".", "..", "good.jpg", "bad.jpg"])
        XCTAssertEqual(thumbnails.asked.load(ordering: .relaxed), askedAtStart, "lookups, getattr and listings ask the service nothing")

        let version = fs.current.hiddenVersion
        let file = try fs.open(bad.inode, flags: O_RDONLY).get()
        var buffer = [UInt8](repeating: 0, count: 8)
        XCTAssertEqual(buffer.withUnsafeMutableBytes { fs.read(file.handle, at: 0, into: $0).failure }, .ioError)
        fs.release(file.handle)
        XCTAssertEqual(fs.current.hiddenVersion, version + 1, "the failed read published the tree again")
        XCTAssertEqual(fs.lookup(parent: boxFolder, name: "bad.jpg").failure, .notFound)
        XCTAssertEqual(fs.attributes(of: bad.inode).failure, .notFound)
        XCTAssertEqual(fs.open(bad.inode, flags: O_RDONLY).failure, .notFound)
        XCTAssertEqual(try listing(fs, boxFolder), [".", "..", "good.jpg"])
        XCTAssertEqual(try fs.lookup(parent: try fs.lookup(parent: 1, name: "non-screenshots").get().inode, name: "bad.jpg").get().size, 20,
                       "its original stays")

        fs.update(library(badSize: 20))
        XCTAssertEqual(try listing(fs, boxFolder), [".", "..", "good.jpg"], "still the file that failed")
        fs.update(library(badSize: 30))
        XCTAssertEqual(try listing(fs, boxFolder), [".", "..", "good.jpg", "bad.jpg"], "a changed photo is tried again")
        XCTAssertEqual(try fs.lookup(parent: boxFolder, name: "bad.jpg").get().inode, bad.inode)
    }

    /// A thumbnail that leaves its listing while a tree's numbering holds `InodeAllocator`'s lock
    /// holds up no other request: lookups and getattr answer while the hiding waits for the
    /// numbering, and the thumbnail leaves its listing once the numbering ends.
    func testAThumbnailThatFailsDuringATreesNumberingHoldsUpNoRequest() throws {
        let thumbnails = FailingThumbnails()
        let fs = try AlbumFileSystem(library: library(badSize: 20), sourceRoot: "/nowhere", owner: Owner(uid: 7, gid: 8),
                                     services: FileSystemServices(thumbnails: thumbnails), log: { _ in })
        let boxFolder = try fs.lookup(parent: try fs.lookup(parent: 1, name: "thumbnails").get().inode, name: "200x200").get().inode
        let bad = try fs.lookup(parent: boxFolder, name: "bad.jpg").get()
        let good = try fs.lookup(parent: boxFolder, name: "good.jpg").get()
        let file = try fs.open(bad.inode, flags: O_RDONLY).get()
        defer { fs.release(file.handle) }

        let (numbering, endNumbering, numbered) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        Thread {
            _ = fs.tree.inodes.batch(photoCount: 0) { _, _ in
                numbering.signal()
                endNumbering.wait()
            }
            numbered.signal()
        }.start()
        XCTAssertEqual(numbering.wait(timeout: .now() + 10), .success, "a tree's numbering holds its lock")
        while thumbnails.asking.wait(timeout: .now()) == .success {}

        let readEnded = DispatchSemaphore(value: 0)
        let readAnswer = Locked<Errno?>(nil)
        Thread {
            var buffer = [UInt8](repeating: 0, count: 8)
            let failure = buffer.withUnsafeMutableBytes { fs.read(file.handle, at: 0, into: $0).failure }
            readAnswer.withLock { $0 = failure }
            readEnded.signal()
        }.start()
        XCTAssertEqual(thumbnails.asking.wait(timeout: .now() + 10), .success, "the failed read looks for the thumbnails to hide")

        let answered = DispatchSemaphore(value: 0)
        let answers = Locked<(lookup: UInt64?, size: Int64?)>((nil, nil))
        Thread {
            let found = try? fs.lookup(parent: boxFolder, name: "good.jpg").get()
            let attributes = try? fs.attributes(of: good.inode).get()
            answers.withLock { $0 = (found?.inode, attributes?.size) }
            answered.signal()
        }.start()
        XCTAssertEqual(answered.wait(timeout: .now() + 5), .success, "a lookup and a getattr answer while the hiding waits for the numbering")
        XCTAssertEqual(readEnded.wait(timeout: .now() + 0.2), .timedOut, "the hiding waits for the numbering")

        endNumbering.signal()
        XCTAssertEqual(numbered.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(readEnded.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(answers.withLock { $0.lookup }, good.inode)
        XCTAssertEqual(answers.withLock { $0.size }, 4321)
        XCTAssertEqual(readAnswer.withLock { $0 }, .ioError)
        XCTAssertEqual(fs.lookup(parent: boxFolder, name: "bad.jpg").failure, .notFound, "hidden once the numbering ended")
        XCTAssertEqual(try listing(fs, boxFolder), [".", "..", "good.jpg"])
    }
}
