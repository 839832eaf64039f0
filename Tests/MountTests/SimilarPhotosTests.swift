import AlbumCore
import AlbumSample
import Foundation
import Glibc
import XCTest

/// `duplicates/similar/`: photos alike (re-encoded, resized, cropped, turned, a second shot of
/// one scene) are one folder named after the newest, every one in it newest first, the by-date
/// file; hashed in the background after the scan, kept in the index, followed live.
final class SimilarPhotosTests: XCTestCase {
    var source = ""
    var state = ""
    var indexPath: String { state + "/index.sqlite" }
    /// The group's listing: the scene's photos, newest first.
    let group = SimilarFixtures.alike.reversed().map { $0 }

    override func setUpWithError() throws {
        source = makeTempFolder("similar-src")
        state = makeTempFolder("similar-state")
        try FileManager.default.createDirectory(atPath: source + "/Trip", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: source + "/Edits", withIntermediateDirectories: true)
        for (name, bytes) in try SimilarFixtures.files() {
            let folder = SimilarFixtures.alike.prefix(2).contains(name) || SimilarFixtures.others.contains(name) ? "Trip" : "Edits"
            XCTAssertTrue(FileManager.default.createFile(atPath: "\(source)/\(folder)/\(name)", contents: Data(bytes)))
        }
        // An exact copy of another scene: a group of duplicates/, never of similar/.
        XCTAssertEqual(shell("cp -p '\(source)/Trip/other1.jpg' '\(source)/Edits/other1-copy.jpg'").status, 0)
        // What exiftool reads of them: the capture times and the turned one's orientation.
        let read = runCommand("/usr/bin/env", ["exiftool", "-s3", "-DateTimeOriginal", "-Orientation#", source + "/Edits/turned.jpg"])
        XCTAssertEqual(read.stdout.split(separator: "\n"), [Substring(SimilarFixtures.date(4)), "6"], read.stderr)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: source)
        try? FileManager.default.removeItem(atPath: state)
    }

    func mount() throws -> Mount { try Mount(source: source, options: ["-o", "index=" + indexPath]) }

    /// Waits for the hash pass to have shown its groups; asserts it did.
    func waitForThePass(_ m: Mount, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(eventually(60) { daemonStatus(m.mountpoint)["similar"] == "done" }, "\(daemonStatus(m.mountpoint))", file: file, line: line)
    }

    func testPhotosAlikeAreOneFolderNewestFirstEachTheByDateFile() throws {
        let m = try mount()
        defer { m.finish() }
        waitForThePass(m)
        XCTAssertEqual(readdirNames(m.path("duplicates")), ["other1-copy.jpg", "similar"], "the exact copies' group (named by name at one time), then similar/")
        XCTAssertEqual(readdirNames(m.path("duplicates/similar")), ["shifted.jpg"], "one group, named after its newest photo")
        XCTAssertEqual(readdirNames(m.path("duplicates/similar/shifted.jpg")), group)
        for (k, name) in SimilarFixtures.alike.enumerated() {
            let entry = m.path("duplicates/similar/shifted.jpg/" + name)
            let dated = try XCTUnwrap(statOf(m.path("by-date/2024/2024-05/2024-05-17/" + name)), name)
            let st = try XCTUnwrap(statOf(entry), name)
            XCTAssertEqual(st.st_ino, dated.st_ino, "\(name): the by-date file")
            XCTAssertEqual(st.st_mtim.tv_sec, dated.st_mtim.tv_sec, "\(name): mtime is the capture time")
            XCTAssertEqual(Self.utc(st.st_mtim.tv_sec), SimilarFixtures.date(k), name)
            let folder = k < 2 ? "Trip" : "Edits"
            XCTAssertEqual(xattr(entry, "user.albumfs.source"), "\(source)/\(folder)/\(name)")
            XCTAssertEqual(xattr(entry, "user.albumfs.similar"), "duplicates/similar/shifted.jpg")
            XCTAssertEqual(xattr(m.path("by-date/2024/2024-05/2024-05-17/" + name), "user.albumfs.similar"), "duplicates/similar/shifted.jpg")
        }
        XCTAssertNil(xattr(m.path("by-date/2024/2024-05/2024-05-17/other2.jpg"), "user.albumfs.similar"))
        XCTAssertEqual(errno, ENODATA)
        XCTAssertEqual(FileManager.default.contents(atPath: m.path("duplicates/similar/shifted.jpg/turned.jpg")),
                       FileManager.default.contents(atPath: source + "/Edits/turned.jpg"))
        XCTAssertEqual(open(m.path("duplicates/similar/shifted.jpg/original.jpg"), O_WRONLY), -1, "read-only")
        XCTAssertEqual(errno, EROFS)
        // filter/similar lists the same photos, newest first as every flat view.
        XCTAssertEqual(readdirNames(m.path("filter/similar")), group)
        XCTAssertEqual(readdirNames(m.path("filter/similar/not(format=jpeg)")), [])
        // A pick from it is the photo.
        XCTAssertEqual(symlink("../duplicates/similar/shifted.jpg/cropped.jpg", m.path("picked/cropped.jpg")), 0, "a pick: \(errno)")
        XCTAssertEqual(statOf(m.path("picked/cropped.jpg"))?.st_ino, statOf(m.path("by-date/2024/2024-05/2024-05-17/cropped.jpg"))?.st_ino)
        let status = daemonStatus(m.mountpoint)
        XCTAssertEqual(status["similar_groups"], "1")
        XCTAssertEqual(status["similar_plain"], "0 stills, 0 hashes")
        XCTAssertEqual(status["similar_hashed"], "10", "every still once: \(status)")
        XCTAssertEqual(status["similar_pending"], "0")
        XCTAssertEqual(status["duplicate_groups"], "1")
    }

    /// Stills of one picture past the bound (`albumfs sample --count`'s library: one picture) are
    /// a plain picture: no folder, counted in the status; the scene's group is shown as ever.
    func testStillsOfOnePicturePastTheBoundAreLeftOutAndCounted() throws {
        try SampleLibrary.writeBulk(to: source + "/Pocket", count: SimilarGroups.plainBound + 1)
        let m = try mount()
        defer { m.finish() }
        waitForThePass(m)
        XCTAssertEqual(readdirNames(m.path("duplicates/similar")), ["shifted.jpg"], "the scene's group alone")
        XCTAssertEqual(readdirNames(m.path("duplicates/similar/shifted.jpg")), group)
        let status = daemonStatus(m.mountpoint)
        // other3.jpg is the marker picture too, larger: its hash is the plain one.
        XCTAssertEqual(status["similar_plain"], "\(SimilarGroups.plainBound + 2) stills, 1 hashes", "\(status)")
        XCTAssertEqual(status["similar_groups"], "1")
        XCTAssertEqual(status["similar_hashed"], String(SimilarGroups.plainBound + 11), "every still once: \(status)")
    }

    /// A remount hashes nothing and shows the groups at once (from the index); a photo alike
    /// added while mounted joins its group once hashed, and one removed leaves it.
    func testARemountHashesNothingAndAPhotoAddedLiveJoinsItsGroup() throws {
        var m = try mount()
        waitForThePass(m)
        m.finish()
        m = try mount()
        defer { m.finish() }
        XCTAssertEqual(readdirNames(m.path("duplicates/similar/shifted.jpg")), group, "shown from the index before any pass")
        waitForThePass(m)
        XCTAssertEqual(daemonStatus(m.mountpoint)["similar_hashed"], "0", "\(daemonStatus(m.mountpoint))")
        // Another copy re-encoded, newest of all, written aside and moved in whole.
        let scene = SampleImage.scene(width: 800, height: 600, seed: 7)
        let exif = SampleExif.camera("Canon", "EOS R5", "2024:05:17 10:30:00")
        let again = SampleJPEG.insertingAPP1(exif.payload(), into: try SampleJPEG.jpeg(scene.resized(width: 400, height: 300), quality: 60))
        XCTAssertTrue(FileManager.default.createFile(atPath: source + "/.again.jpg", contents: Data(again)))
        XCTAssertEqual(rename(source + "/.again.jpg", source + "/Trip/again.jpg"), 0)
        XCTAssertTrue(eventually(30) { readdirNames(m.path("duplicates/similar")) == ["again.jpg"] },
                      "\(readdirNames(m.path("duplicates/similar")) ?? []) \(daemonStatus(m.mountpoint))")
        XCTAssertEqual(readdirNames(m.path("duplicates/similar/again.jpg")), ["again.jpg"] + group)
        XCTAssertEqual(daemonStatus(m.mountpoint)["similar_hashed"], "1", "the one added alone")
        XCTAssertEqual(unlink(source + "/Trip/again.jpg"), 0)
        XCTAssertTrue(eventually(30) { readdirNames(m.path("duplicates/similar")) == ["shifted.jpg"] },
                      "\(readdirNames(m.path("duplicates/similar")) ?? [])")
    }

    /// The hash worker is a render worker of its own at nice 10 in the idle I/O class; the
    /// thumbnail workers keep the daemon's priority.
    func testTheHashWorkerRunsAtBackgroundPriorityBesideTheThumbnailWorkers() throws {
        let m = try mount()
        defer { m.finish() }
        waitForThePass(m)
        let daemon = m.process.processIdentifier
        var workers: [(pid: Int, name: String, nice: Int)] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int(entry), let stat = readProcFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { continue }  // vacuous-ok: processes that ended or are not numbered; the worker counts below are asserted
            // Fields after the command: state, ppid, … ; nice is the 19th field of the line.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            let words = (readProcFile("/proc/\(pid)/cmdline") ?? "").split(separator: "\0").prefix(2).map(String.init)
            guard fields.count > 17, Int(fields[1]) == Int(daemon), words.count == 2, words[1] == "render-worker" else { continue }  // vacuous-ok: processes other than this daemon's workers
            workers.append((pid, words[0], Int(fields[16]) ?? -99))
        }
        XCTAssertEqual(workers.filter { $0.name == "albumfs-similar" }.map(\.nice), [10], "one hash worker, at nice 10: \(workers)")
        XCTAssertGreaterThanOrEqual(workers.filter { $0.name == "albumfs" }.count, 2, "the thumbnail workers: \(workers)")
        XCTAssertTrue(workers.filter { $0.name == "albumfs" }.allSatisfy { $0.nice == 0 }, "at the daemon's priority: \(workers)")
        for worker in workers {
            let io = runCommand("/usr/bin/ionice", ["-p", String(worker.pid)]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(io == "idle", worker.name == "albumfs-similar", "pid \(worker.pid) \(worker.name): \(io)")
        }
    }

    static func utc(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y:%m:%d %H:%M:%S", &parts)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
