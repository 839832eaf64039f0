import AlbumCore
import AlbumSystem
@testable import AlbumMetadata
import AlbumLive
import AlbumSample
import Foundation
import XCTest

final class LibraryScannerTests: FolderTestCase {
    func testScanOfTheSampleLibraryMatchesItsExpectations() throws {
        let items = try SampleLibrary.write(to: folder)
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: Int64(Date().timeIntervalSince1970))))
        let report = LibraryScanner(root: folder, rules: rules).scanned()
        let byPath = Dictionary(uniqueKeysWithValues: report.photos.map { ($0.relativePath, $0) })
        for item in items {
            guard let day = item.expectedDay else {
                XCTAssertNil(byPath[item.path], "\(item.path) must not be a photo")
                continue
            }
            let p = try XCTUnwrap(byPath[item.path], item.path)
            XCTAssertEqual(p.capture.time.local.dayString, day, item.path)
            XCTAssertEqual(p.screenshot.isScreenshot, item.expectedScreenshot, "\(item.path): \(p.screenshot.reason)")
            XCTAssertEqual(p.capture.source, item.expectedDateSource, item.path)
        }
        XCTAssertEqual(report.photos.count, items.filter { $0.expectedDay != nil }.count, "links and hidden files add nothing")
        XCTAssertTrue(report.problems.contains { $0.relativePath == "Edge/corrupt-exif.jpg" })
    }

    /// Reading first blocks through io_uring, a chunk at a time, finds exactly what reading file by
    /// file does: for every kind of file of the sample library (damaged ones included), a header
    /// that goes on past the first block, a folder, and a file gone since the walk.
    func testBatchedReadsFindWhatFileByFileReadsFind() throws {
        _ = try SampleLibrary.write(to: folder)
        // EXIF after 65,000 bytes of another APP1 segment: past the 64 KiB first block.
        let exif = SampleExif.camera("Canon", "EOS", "2021:03:04 05:06:07", order: .intel).payload()
        let late = SampleJPEG.insertingAPP1([UInt8](repeating: 0x41, count: 65_000),
                                          into: SampleJPEG.insertingAPP1(exif, into: try SampleJPEG.jpeg(.marker(width: 16, height: 16))))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/late-exif.jpg", contents: Data(late)))
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))
        var batched = LibraryScanner(root: folder, rules: rules)
        batched.batchedReads = true
        var single = batched
        single.batchedReads = false
        let unknown = FileIdentity(inode: 0, size: -1, mtime: Timestamp(seconds: 0))
        let items = batched.survey(previous: [:]).toRead + [("Edge", unknown), ("gone.jpg", unknown)]
        XCTAssertGreaterThan(items.count, 40, "more than one chunk")
        let a = batched.read(items), b = single.read(items)
        XCTAssertEqual(a.count, b.count)
        for (x, y) in zip(a, b) { XCTAssertEqual(x, y, y.relativePath) }
        XCTAssertEqual(a.count, items.count - 1, "the file gone is left out")
        let lateFile = try XCTUnwrap(a.first { $0.relativePath == "late-exif.jpg" })
        guard case .photo(_, let e) = lateFile.kind else { return XCTFail("\(lateFile.kind)") }
        XCTAssertEqual(e.dateTimeOriginal, "2021:03:04 05:06:07")
        XCTAssertEqual(a.first { $0.relativePath == "Edge" }?.kind, .ignored)
    }

    /// The screenshot words configured (`-o screenshot_names`) date screenshot names too: the
    /// date rule takes them from the screenshot rule, not from a second setting.
    func testConfiguredScreenshotWordsDateNames() {
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)),
                              screenshots: ScreenshotRules(namePrefixes: ["Ekraanipilt"]))
        let scanner = LibraryScanner(root: folder, rules: rules)
        let file = IndexedFile(relativePath: "Ekraanipilt 2024-05-17 14.03.04.png",
                               identity: FileIdentity(inode: 1, size: 1, mtime: Timestamp(seconds: 0)), kind: .photo(.png, PhotoEvidence()))
        let photo = scanner.photo(from: file)
        XCTAssertEqual(photo?.capture.source, .fileName)
        XCTAssertEqual(photo?.capture.time.local, LocalDateTime(year: 2024, month: 5, day: 17, hour: 14, minute: 3, second: 4))
        XCTAssertEqual(photo?.screenshot.isScreenshot, true)
    }

    /// A folder reached twice (bind mounts, which unlike links the walk cannot tell by name: one
    /// of a folder inside itself, one of a folder beside another) is listed once, under the path
    /// met first, and the walk ends; a folder swapped for a link is not followed.
    func testBindMountedFoldersAreListedOnce() throws {
        let fm = FileManager.default
        for dir in ["a/b/inner", "src", "x", "y"] { try fm.createDirectory(atPath: folder + "/" + dir, withIntermediateDirectories: true) }
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 8, height: 8)))
        XCTAssertTrue(fm.createFile(atPath: folder + "/a/one.jpg", contents: jpeg))
        XCTAssertTrue(fm.createFile(atPath: folder + "/src/two.jpg", contents: jpeg))
        var mounted: [String] = []
        defer { for m in mounted.reversed() { _ = umount2(m, Int32(MNT_DETACH)) } }
        for (from, to) in [("a", "a/b/inner"), ("src", "x"), ("src", "y")] {
            XCTAssertEqual(mount(folder + "/" + from, folder + "/" + to, nil, UInt(MS_BIND), nil), 0, "bind \(from) on \(to): \(Errno.current)")
            mounted.append(folder + "/" + to)
        }
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let paths = scanner.survey(previous: [:]).toRead.map(\.path).sorted()
        XCTAssertEqual(paths, ["a/one.jpg", "src/two.jpg"])
        let rootFD = try SourceOpening.root(folder)
        defer { close(rootFD) }
        XCTAssertEqual(LibraryWalk.openFolder("missing", beneath: rootFD).failure, Errno(rawValue: ENOENT))
        try fm.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/src")
        XCTAssertEqual(LibraryWalk.openFolder("link", beneath: rootFD).failure, Errno(rawValue: ELOOP), "a link is not opened as a folder")
        try fm.createDirectory(atPath: folder + "/src/deeper", withIntermediateDirectories: true)
        XCTAssertEqual(LibraryWalk.openFolder("link/deeper", beneath: rootFD).failure, Errno(rawValue: ELOOP), "nor a folder behind a link")
        let linkedRoot = try SourceOpening.root(folder + "/link")
        close(linkedRoot)  // the library's own folder may be a link
    }

    /// A file named `.png` is read 16 KiB first, not 64 (then its end, PNGHeader): a big PNG
    /// costs ~30 KiB of reading instead of ~130. A PNG whose chunks before the image data run past
    /// 16 KiB, and a JPEG named `.png` whose EXIF does, are still read whole, batched or not.
    func testAFileNamedPNGIsReadSixteenKiBFirst() throws {
        XCTAssertTrue(MetadataReader.hasPNGExtension("a.png") && MetadataReader.hasPNGExtension("Pictures/B.PNG")
                      && MetadataReader.hasPNGExtension("é.Png"))
        for name in ["png", "a.pngx", "apng", "a.jpg", "a.pn", ""] { XCTAssertFalse(MetadataReader.hasPNGExtension(name), name) }
        XCTAssertEqual(MetadataReader.firstReadLength(size: 5_000_000, name: "x.png"), 16 << 10)
        XCTAssertEqual(MetadataReader.firstReadLength(size: 5_000_000, name: "x.jpg"), 64 << 10)
        XCTAssertEqual(MetadataReader.firstReadLength(size: 1000, name: "x.png"), 1000)

        // 300x300 of noise: libpng's 8 KiB IDAT chunks, 270 KB.
        var rng = SeededGenerator.forTest(0x5CA9)
        let noisy = try SamplePNG.png(SampleImage(width: 300, height: 300, pixels: (0..<270_000).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        let software = SamplePNG.textChunk("Software", "gnome-screenshot")
        // An unknown chunk of 30 KB before the Software text: past the first 16 KiB.
        let lateText = SamplePNG.insertingChunk("tEXt", software, into: SamplePNG.insertingChunk("zzZz", [UInt8](repeating: 7, count: 30_000), into: noisy))
        let exif = SampleExif.camera("Canon", "EOS", "2021:03:04 05:06:07").payload()
        let lateExif = SampleJPEG.insertingAPP1(exif, into: SampleJPEG.insertingAPP1([UInt8](repeating: 0x41, count: 30_000),
                                                                                  into: try SampleJPEG.jpeg(.marker(width: 16, height: 16))))
        for (name, bytes) in [("plain.png", noisy), ("plain.dat", noisy), ("late-text.png", lateText), ("jpeg.png", lateExif)] {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(bytes)))
        }
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))
        for batchedReads in [true, false] {
            var scanner = LibraryScanner(root: folder, rules: rules)
            scanner.batchedReads = batchedReads
            /// The file read, without the read's ctime (files made a moment apart differ in it).
            func bytesRead(_ name: String) -> (IndexedFile?, Int) {
                let before = Self.bytesReadByThisProcess()
                var file = scanner.read(scanner.survey(previous: [:]).toRead.filter { $0.path == name }).first
                XCTAssertNotNil(file?.changedWhenRead, name)
                file?.changedWhenRead = nil
                return (file, Self.bytesReadByThisProcess() - before)
            }
            let (plain, plainBytes) = bytesRead("plain.png")
            var st = stat()
            XCTAssertEqual(stat(folder + "/plain.png", &st), 0)
            XCTAssertEqual(plain?.kind, .photo(.png, { var e = PhotoEvidence(); e.pixelWidth = 300; e.pixelHeight = 300; e.access = FileAccess(st); return e }()))
            let (dat, datBytes) = bytesRead("plain.dat")
            XCTAssertEqual(dat?.kind, plain?.kind)
            // (rchar counts read system calls: io_uring's reads do not show, only the rest.)
            if !batchedReads {
                XCTAssertLessThan(plainBytes, 40 << 10, "16 KiB first, ~12 KiB of the end")
                XCTAssertGreaterThan(datBytes, 64 << 10, "another name: the 64 KiB first block")
            }
            guard case .photo(.png, let t)? = bytesRead("late-text.png").0?.kind else { return XCTFail("late-text.png") }
            XCTAssertEqual(t.pngSoftware, "gnome-screenshot")
            guard case .photo(.jpeg, let j)? = bytesRead("jpeg.png").0?.kind else { return XCTFail("jpeg.png") }
            XCTAssertEqual(j.dateTimeOriginal, "2021:03:04 05:06:07")
        }
    }

    /// What this process has read through system calls so far (`rchar` of /proc/self/io).
    static func bytesReadByThisProcess() -> Int {
        let io = (try? String(contentsOfFile: "/proc/self/io", encoding: .utf8)) ?? ""
        return io.split(separator: "\n").first { $0.hasPrefix("rchar:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// A header read of a big file reads its first 64 KiB from the disk, not the 256 KiB the
    /// kernel's readahead would add (a cold scan of real photos: four times the I/O), batched or not.
    func testAHeaderReadOfABigFileReadsNoMoreThanItAsks() throws {
        let exif = SampleExif.camera("Canon", "EOS", "2021:03:04 05:06:07").payload()
        let jpeg = SampleJPEG.insertingAPP1(exif, into: try SampleJPEG.jpeg(.marker(width: 16, height: 16)))
        let path = folder + "/big.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(jpeg + [UInt8](repeating: 0x5A, count: 4 << 20))))
        for batched in [true, false] {
            var scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
            scanner.batchedReads = batched
            try Self.evictFromPageCache(path)
            XCTAssertEqual(try Self.residentPages(path), 0, "evicted")
            let read = scanner.read(scanner.survey(previous: [:]).toRead)
            guard case .photo(_, let e)? = read.first?.kind else { return XCTFail("\(read)") }
            XCTAssertEqual(e.dateTimeOriginal, "2021:03:04 05:06:07")
            XCTAssertLessThanOrEqual(try Self.residentPages(path), 16, "batched: \(batched)")
        }
    }

    static func evictFromPageCache(_ path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw Errno.current }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Errno.current }
        let rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        guard rc == 0 else { throw Errno(rawValue: rc) }
    }

    /// Pages of the file in the page cache (`mincore`, as fincore(1) counts them).
    static func residentPages(_ path: String) throws -> Int {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw Errno.current }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Errno.current }
        let length = Int(st.st_size)
        guard let map = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else { throw Errno.current }
        defer { munmap(map, length) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var vector = [UInt8](repeating: 0, count: (length + page - 1) / page)
        guard mincore(map, length, &vector) == 0 else { throw Errno.current }
        return vector.filter { $0 & 1 != 0 }.count
    }

    /// A name that is not valid UTF-8 is a photo like any other, under its own bytes.
    func testNamesThatAreNotUTF8AreReadUnderTheirOwnBytes() throws {
        // "caf\xe9.jpg" in Latin-1, as old cameras and Windows shares write it.
        let raw: [CChar] = Array((folder + "/caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xE9)] + Array(".jpg".utf8CString)
        let fd = open(raw, O_WRONLY | O_CREAT, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let jpeg = try SampleJPEG.jpeg(.marker(width: 4, height: 4))
        _ = jpeg.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))
        let report = LibraryScanner(root: folder, rules: rules).scanned()
        XCTAssertEqual(report.problems.map(\.message), [])
        XCTAssertEqual(report.photos.map { FileNameBytes.bytes($0.relativePath) }, [Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)])
        XCTAssertEqual(report.photos.first?.format, .jpeg)
    }

    /// "Café" composed (NFC, as Linux tools write it) and decomposed (NFD, as macOS wrote it) are
    /// two names on disk but one String in Swift: the second was merged into the first and lost
    /// without a word. Now the first in byte order (NFD) is kept and the other reported, for files
    /// and folders alike, whatever order the folder lists them in.
    func testNamesThatDifferOnlyInTheirUnicodeFormAreReportedNotMerged() throws {
        let composed: [UInt8] = Array("Caf".utf8) + [0xC3, 0xA9], decomposed: [UInt8] = Array("Cafe".utf8) + [0xCC, 0x81]
        let jpeg = try SampleJPEG.jpeg(.marker(width: 4, height: 4))
        func create(_ relative: [UInt8], folder isFolder: Bool = false) {
            let path = (Array(folder.utf8) + [UInt8(ascii: "/")] + relative).map { CChar(bitPattern: $0) } + [0]
            if isFolder { XCTAssertEqual(mkdir(path, 0o755), 0); return }
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            _ = jpeg.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        create(composed + Array(".jpg".utf8))
        create(decomposed + Array(".jpg".utf8))
        create(composed, folder: true)
        create(composed + Array("/a.jpg".utf8))
        create(decomposed, folder: true)
        create(decomposed + Array("/b.jpg".utf8))
        create(Array("plain.jpg".utf8))
        XCTAssertEqual(String(decoding: composed, as: UTF8.self), String(decoding: decomposed, as: UTF8.self), "one String to Swift")
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))
        let report = LibraryScanner(root: folder, rules: rules).scanned()
        let nfd = String(decoding: decomposed, as: UTF8.self)
        XCTAssertEqual(report.photos.map { Array($0.relativePath.utf8) }.sorted { $0.lexicographicallyPrecedes($1) },
                       [decomposed + Array(".jpg".utf8), decomposed + Array("/b.jpg".utf8), Array("plain.jpg".utf8)])
        XCTAssertEqual(report.problems.map { Array($0.relativePath.utf8) }.sorted { $0.lexicographicallyPrecedes($1) },
                       [composed, composed + Array(".jpg".utf8)])
        for problem in report.problems {
            XCTAssertTrue(problem.message.hasPrefix("the name differs from \u{201C}"), problem.message)
            XCTAssertTrue(problem.message.contains("only in its Unicode form; skipped"), problem.message)
        }
        XCTAssertTrue(report.problems.contains { $0.message.contains("\u{201C}\(nfd).jpg\u{201D}") })
        // Whatever order the folder lists them in.
        let entries = [LibraryWalk.FolderEntry(name: String(decoding: composed, as: UTF8.self), type: 8, inode: 1),
                       LibraryWalk.FolderEntry(name: nfd, type: 8, inode: 2), LibraryWalk.FolderEntry(name: "a", type: 8, inode: 3)]
        for listed in [entries, entries.reversed()] {
            let (distinct, shadowed) = LibraryWalk.distinctNames(listed.sorted { $0.name < $1.name })
            XCTAssertEqual(distinct.map(\.inode), [2, 3], "the decomposed Café, then a")
            XCTAssertEqual(shadowed.map { Array($0.name.utf8) }, [composed])
        }
    }

    /// Trash, snapshot and thumbnail folders of NASes and Windows drives hold no photos of the
    /// library (deleted ones, copies, previews): never listed. A file of such a name is.
    func testTrashSnapshotAndThumbnailFoldersAreSkipped() throws {
        let fm = FileManager.default
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        for skipped in ["@eaDir/x", "#recycle", "#snapshot", "$RECYCLE.BIN/S-1-5-21", "$Recycle.Bin", "RECYCLER", "@Recycle",
                        "@Recently-Snapshot/GMT+01_2024-01-01", "System Volume Information", "lost+found", ".Trash-1000/files", "a/@__thumb"] {
            try fm.createDirectory(atPath: folder + "/" + skipped, withIntermediateDirectories: true)
            XCTAssertTrue(fm.createFile(atPath: folder + "/" + skipped + "/deleted.jpg", contents: jpeg))
        }
        XCTAssertTrue(fm.createFile(atPath: folder + "/a/kept.jpg", contents: jpeg))
        XCTAssertTrue(fm.createFile(atPath: folder + "/RECYCLER.jpg", contents: jpeg))
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))
        let report = LibraryScanner(root: folder, rules: rules).scanned()
        XCTAssertEqual(report.photos.map(\.relativePath).sorted(), ["RECYCLER.jpg", "a/kept.jpg"])
    }

    /// An Apple photo library package on a disk a Mac wrote: its originals are photos, its
    /// previews and thumbnails of every photo are not.
    func testApplePhotoLibrariesShowTheirOriginalsOnly() throws {
        let fm = FileManager.default
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        let kept = ["Photos Library.photoslibrary/originals/A/IMG_1.jpeg", "Old.photoslibrary/Masters/2019/IMG_2.JPG",
                    "Aperture Library.aplibrary/Masters/2012/IMG_3.JPG", "resources/derivatives/IMG_4.jpeg"]
        let skipped = ["Photos Library.photoslibrary/resources/derivatives/A/IMG_1_1_105_c.jpeg",
                       "Photos Library.photoslibrary/resources/renders/A/IMG_1_1_201_a.jpeg",
                       "Aperture Library.aplibrary/Previews/2012/IMG_3.jpg", "iPhoto Library.photolibrary/Thumbnails/x.jpg"]
        for path in kept + skipped {
            try fm.createDirectory(atPath: folder + "/" + path.folderBeforeLastSlash, withIntermediateDirectories: true)
            XCTAssertTrue(fm.createFile(atPath: folder + "/" + path, contents: jpeg))
        }
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))
        XCTAssertEqual(LibraryScanner(root: folder, rules: rules).scanned().photos.map(\.relativePath).sorted(), kept.sorted())
        XCTAssertEqual(LibraryScanner(root: folder, rules: rules).scanned(under: "Photos Library.photoslibrary")
            .photos.map(\.relativePath), ["Photos Library.photoslibrary/originals/A/IMG_1.jpeg"], "a rescan of the package too")
    }

    /// HEIF images are read by every scan and are photos only where `formats` says so (not with
    /// `-o heif=off`); a `.heic` that is empty (a damaged photo) or not HEIF (a
    /// problem, as a `.jpg` that is no JPEG) is said only then, and is another file otherwise.
    func testHEIFImagesArePhotosOnlyWhereTheRulesSaySo() throws {
        let fm = FileManager.default
        let heic = try SampleHEIF.heif(.marker(width: 64, height: 48), metadata: .init(exif: SampleExif.camera("Apple", "iPhone", "2024:01:02 03:04:05").payload()))
        XCTAssertTrue(fm.createFile(atPath: folder + "/IMG_1.HEIC", contents: Data(heic)))
        XCTAssertTrue(fm.createFile(atPath: folder + "/heic-named.jpg", contents: Data(heic)))
        XCTAssertTrue(fm.createFile(atPath: folder + "/empty.heic", contents: Data()))
        XCTAssertTrue(fm.createFile(atPath: folder + "/text.heic", contents: Data("not an image at all".utf8)))
        XCTAssertTrue(fm.createFile(atPath: folder + "/a.jpg", contents: Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))))
        let dates = CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))
        let plain = LibraryScanner(root: folder, rules: ScanRules(dates: dates, formats: [.jpeg, .png])).scanned()
        XCTAssertEqual(plain.photos.map(\.relativePath), ["a.jpg"])
        XCTAssertEqual(plain.problems, [])
        let withHEIF = LibraryScanner(root: folder, rules: ScanRules(dates: dates, formats: [.jpeg, .png, .heif])).scanned()
        XCTAssertEqual(withHEIF.photos.map(\.relativePath).sorted(), ["IMG_1.HEIC", "a.jpg", "empty.heic", "heic-named.jpg"])
        XCTAssertEqual(withHEIF.photos.first { $0.relativePath == "IMG_1.HEIC" }?.capture.source, .exifDateTimeOriginal)
        XCTAssertEqual(withHEIF.problems.map(\.relativePath), ["empty.heic", "text.heic"])
    }

    func testSymlinksAreNeverFollowed() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder + "/a/b", withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: folder + "/a/b/p.jpg", contents: Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))))
        try fm.createSymbolicLink(atPath: folder + "/a/b/loop", withDestinationPath: "../..")
        try fm.createSymbolicLink(atPath: folder + "/a/again.jpg", withDestinationPath: "b/p.jpg")
        try fm.createSymbolicLink(atPath: folder + "/etc", withDestinationPath: "/etc")
        let rules = ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000)))
        let report = LibraryScanner(root: folder, rules: rules).scanned()
        XCTAssertEqual(report.photos.map(\.relativePath), ["a/b/p.jpg"], "links are not followed: one photo, at its real path")
        // A rescan of one folder does not follow links either.
        let partial = LibraryScanner(root: folder, rules: rules).scanned(under: "a/b")
        XCTAssertEqual(partial.photos.map(\.relativePath), ["a/b/p.jpg"])
    }

    func testAFirstScanStatsNothingTwiceAndStillGetsEveryIdentity() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder + "/d", withIntermediateDirectories: true)
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        XCTAssertTrue(fm.createFile(atPath: folder + "/d/p.jpg", contents: jpeg))
        XCTAssertTrue(fm.createFile(atPath: folder + "/d/q.jpg", contents: jpeg))
        XCTAssertEqual(link(folder + "/d/p.jpg", folder + "/d/hard.jpg"), 0)
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        // Nothing known, nothing to settle: the walk takes names and inodes from readdir alone.
        let survey = scanner.survey(previous: [:])
        XCTAssertEqual(survey.toRead.map(\.path), ["d/hard.jpg", "d/q.jpg"], "a hard link is one file (its first name)")
        XCTAssertTrue(survey.toRead.allSatisfy { $0.identity.size == -1 })
        let read = scanner.read(survey.toRead)
        var st = stat()
        XCTAssertEqual(stat(folder + "/d/q.jpg", &st), 0)
        XCTAssertEqual(read.first { $0.relativePath == "d/q.jpg" }?.identity, FileIdentity(inode: UInt64(st.st_ino), size: Int64(st.st_size), mtime: Timestamp(seconds: Int64(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec))), "the read fills in the identity")
        // Known files are stat'ed, so an unchanged one is reused without a read.
        let again = scanner.survey(previous: Dictionary(uniqueKeysWithValues: read.map { ($0.relativePath, $0) }))
        XCTAssertEqual(again.toRead.count, 0)
        XCTAssertEqual(again.reused.count, 2)
        // (An unreadable file's real size and mtime: MountTests' ReadErrorTests, run without root's caps.)
    }

    /// A live rescan defers a file changed after the settle edge (it may still be being written),
    /// but not one whose stamp is far in the future: a wrong clock (a camera's, kept by `cp -p`),
    /// which was deferred, and its folder rescanned every second, until the clock caught up.
    func testAFutureStampIsAWrongClockNotAWriteGoingOn() throws {
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        let now = Int64(time(nil))
        for (name, mtime) in [("settled.jpg", now - 100), ("recent.jpg", now + 30), ("tomorrow.jpg", now + 86_400)] {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: jpeg))
            var times = [timespec(tv_sec: Int(now - 100), tv_nsec: 0), timespec(tv_sec: Int(mtime), tv_nsec: 0)]
            XCTAssertEqual(utimensat(AT_FDCWD, folder + "/" + name, &times, 0), 0)
        }
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: now))))
        // The settle edge a few seconds on (every ctime, set just now, is before it).
        let survey = scanner.survey(LibraryScanner.SurveyRequest(settledBefore: Timestamp(seconds: now + 5)), previous: [:])
        XCTAssertEqual(survey.deferred, ["recent.jpg"])
        XCTAssertEqual(survey.toRead.map(\.path).sorted(), ["settled.jpg", "tomorrow.jpg"])
        XCTAssertTrue(LibraryScanner.mayBeBeingWritten(Timestamp(seconds: now + 3), settledBefore: Timestamp(seconds: now - 1)))
        XCTAssertFalse(LibraryScanner.mayBeBeingWritten(Timestamp(seconds: now - 2), settledBefore: Timestamp(seconds: now - 1)))
        XCTAssertFalse(LibraryScanner.mayBeBeingWritten(Timestamp(seconds: now + 3_600), settledBefore: Timestamp(seconds: now - 1)))
    }

    /// In a tmpfs (relatime, whatever /tmp is mounted with), where a plain read of a file whose
    /// access time is before its mtime writes a new one: the control file shows it does.
    func testScanningLeavesAccessTimesAlone() throws {
        let library = "/dev/shm/albumfs-atime-\(getpid())"
        XCTAssertEqual(mkdir(library, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: library) }
        let bytes = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        let path = library + "/p.jpg"
        // atime before mtime: exactly when relatime would update it on the next read.
        for file in [path, library + "/control.jpg"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: bytes))
            var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 0)]
            XCTAssertEqual(utimensat(AT_FDCWD, file, &times, 0), 0)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: library + "/control.jpg"), bytes)
        var st = stat()
        XCTAssertEqual(stat(library + "/control.jpg", &st), 0)
        XCTAssertNotEqual(st.st_atim.tv_sec, 1_000_000_000, "a plain read writes the access time here")
        XCTAssertEqual(unlink(library + "/control.jpg"), 0)
        let scanner = LibraryScanner(root: library, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        XCTAssertEqual(scanner.scanned().photos.count, 1)
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertEqual(st.st_atim.tv_sec, 1_000_000_000, "the scan must not write the source's access time")
    }

    func testTheSurveyHandsOffEveryFileToReadOnceInOrderWhileWalking() throws {
        let fm = FileManager.default
        for sub in ["a", "b"] { try fm.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true) }
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        let paths = (0..<4).map { "a/\($0).jpg" } + (0..<3).map { "b/\($0).jpg" }
        for p in paths { XCTAssertTrue(fm.createFile(atPath: folder + "/" + p, contents: jpeg)) }
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let known = scanner.read([("a/0.jpg", FileIdentity(inode: 0, size: -1, mtime: Timestamp(seconds: 0)))])
        var handed: [[String]] = []
        let survey = scanner.survey(previous: Dictionary(uniqueKeysWithValues: known.map { ($0.relativePath, $0) }),
                                    batches: (3, { handed.append($0.map(\.path)) }))
        XCTAssertEqual(survey.reused.map(\.relativePath), ["a/0.jpg"], "a known, unchanged file is not read again")
        XCTAssertEqual(handed.map(\.count), [3, 3], "full batches as the walk goes, then the rest")
        XCTAssertEqual(handed.flatMap { $0 }, survey.toRead.map(\.path))
        XCTAssertEqual(Set(handed.flatMap { $0 }), Set(paths.dropFirst()))
    }

    /// A file new at its path that `elsewhere` knows by its identity (a folder renamed) is taken
    /// from it under the new path, not read: its row goes to `found` whole, and the survey keeps
    /// it decided and slim. The walk stats new files for that (their size and mtime are part of
    /// the identity asked about).
    func testAFileKnownElsewhereByItsIdentityIsNotRead() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder + "/new", withIntermediateDirectories: true)
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        for name in ["moved.jpg", "other.jpg"] { XCTAssertTrue(fm.createFile(atPath: folder + "/new/" + name, contents: jpeg)) }
        var st = stat()
        XCTAssertEqual(stat(folder + "/new/moved.jpg", &st), 0)
        let identity = FileIdentity(inode: UInt64(st.st_ino), size: Int64(st.st_size),
                                    mtime: Timestamp(seconds: Int64(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec)))
        var evidence = PhotoEvidence()
        evidence.dateTimeOriginal = "2001:02:03 04:05:06"
        let old = IndexedFile(relativePath: "old/moved.jpg", identity: identity, kind: .photo(.jpeg, evidence))
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let asked = Locked<[[String]]>([])
        let found = Locked<[IndexedFile]>([])
        let lookup = MoveLookup(lookup: { files in
            asked.withLock { $0.append(files.map(\.path)) }
            XCTAssertTrue(files.allSatisfy { $0.identity.size >= 0 }, "stat'ed")
            return files.map { $0.identity == identity ? old : nil }
        }, found: { rows in found.withLock { $0 += rows } })
        let survey = scanner.survey(LibraryScanner.SurveyRequest(moves: lookup), previous: [old.relativePath: old])
        XCTAssertEqual(asked.withLock { $0 }, [["new/moved.jpg", "new/other.jpg"]], "asked together")
        XCTAssertEqual(found.withLock { $0 }, [IndexedFile(relativePath: "new/moved.jpg", identity: identity, kind: .photo(.jpeg, evidence))])
        XCTAssertEqual(survey.moved.map(\.file), found.withLock { $0 }.map(\.slimmed))
        XCTAssertEqual(survey.moved.map(\.from), ["old/moved.jpg"], "where it was known (its photo keeps that path's inodes)")
        XCTAssertEqual(survey.moved.first?.photo?.capture.time.local.dayString, "2001-02-03", "decided from its evidence")
        XCTAssertEqual(survey.toRead.map(\.path), ["new/other.jpg"])
        XCTAssertEqual(survey.filesSeen, 2)
        // A known path that now holds another file, one moved over it (`mv`), is asked about too;
        // one that holds what it held is not.
        let known = scanner.read([("new/other.jpg", FileIdentity(inode: 0, size: -1, mtime: Timestamp(seconds: 0)))])[0]
        var replaced = known
        replaced.identity.mtime = Timestamp(seconds: 1)
        asked.withLock { $0 = [] }
        let lookupAgain = MoveLookup(lookup: { files in
            asked.withLock { $0.append(files.map(\.path)) }
            return files.map { $0.identity == identity ? old : nil }
        }, found: { _ in })
        let over = scanner.survey(LibraryScanner.SurveyRequest(moves: lookupAgain),
                                  previous: [old.relativePath: old, "new/moved.jpg": replaced, "new/other.jpg": known])
        XCTAssertEqual(asked.withLock { $0 }, [["new/moved.jpg"]])
        XCTAssertEqual(over.moved.map(\.file.relativePath), ["new/moved.jpg"])
        XCTAssertEqual(over.reused.map(\.relativePath), ["new/other.jpg"])
    }

    /// Files the caller holds (a mount's own state) are asked before the index: one found at a new
    /// path under the same name, unchanged since read, is taken with its photo re-pathed and its
    /// folder decisions made again, and only its move is handed on; one renamed itself, or whose
    /// ctime moved, is left to the index (and read).
    func testAFileTheCallerHoldsIsTakenWithoutAskingTheIndex() throws {
        let fm = FileManager.default
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        try fm.createDirectory(atPath: folder + "/Album", withIntermediateDirectories: true)
        for name in ["plain.jpg", "renamed.jpg", "touched.jpg"] { XCTAssertTrue(fm.createFile(atPath: folder + "/Album/" + name, contents: jpeg)) }
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let read = scanner.read(scanner.survey(previous: [:]).toRead)
        let held = Dictionary(uniqueKeysWithValues: read.map { ($0.identity, (file: $0.slimmed, photo: scanner.photo(from: $0))) })
        XCTAssertEqual(held.count, 3)
        XCTAssertEqual(held.values.first?.photo?.screenshot.isScreenshot, false)
        XCTAssertEqual(rename(folder + "/Album", folder + "/Screenshots"), 0)
        XCTAssertEqual(rename(folder + "/Screenshots/renamed.jpg", folder + "/Screenshots/other.jpg"), 0)
        let touched = folder + "/Screenshots/touched.jpg"
        XCTAssertEqual(chmod(touched, 0o600), 0, "its ctime moves")
        let asked = Locked<[String]>([])
        var moves: [FileMove] = []
        let lookup = MoveLookup(lookup: { files in
            asked.withLock { $0 += files.map(\.path) }
            return files.map { _ in nil }
        }, found: { XCTAssertEqual($0, []) })
        let heldMoves = KnownMoves(file: { identity in
            held[identity].map { ($0.file.relativePath, $0.file, $0.photo) }
        }, moved: { moves += $0 })
        let survey = scanner.survey(LibraryScanner.SurveyRequest(moves: lookup, held: heldMoves), previous: [:])
        XCTAssertEqual(survey.moved.map(\.file.relativePath), ["Screenshots/plain.jpg"])
        XCTAssertEqual(survey.moved.map(\.from), ["Album/plain.jpg"])
        let plain = try XCTUnwrap(held.values.first { $0.file.relativePath == "Album/plain.jpg" })
        XCTAssertEqual(moves, [FileMove(from: "Album/plain.jpg", to: "Screenshots/plain.jpg", identity: plain.file.identity)])
        let photo = try XCTUnwrap(survey.moved.first?.photo)
        XCTAssertEqual(photo.relativePath, "Screenshots/plain.jpg")
        XCTAssertEqual(photo.fileName, "plain.jpg")
        XCTAssertEqual(photo.screenshot, ScreenshotDecision(isScreenshot: true, reason: "folder Screenshots"), "its new folder decides")
        XCTAssertEqual(photo.capture, plain.photo?.capture)
        XCTAssertEqual(asked.withLock { $0 }.sorted(), ["Screenshots/other.jpg", "Screenshots/touched.jpg"], "left to the index")
        XCTAssertEqual(survey.toRead.map(\.path).sorted(), ["Screenshots/other.jpg", "Screenshots/touched.jpg"])
        // Fewer files new at their path than it is worth asking about: the index alone is asked.
        var heldAsked = 0
        let lookupFew = MoveLookup(lookup: { files in files.map { _ in nil } }, found: { _ in })
        let heldFew = KnownMoves(file: { identity in
            heldAsked += 1
            return held[identity].map { ($0.file.relativePath, $0.file, $0.photo) }
        }, moved: { _ in }, minimumBatch: 4)
        let few = scanner.survey(LibraryScanner.SurveyRequest(moves: lookupFew, held: heldFew), previous: [:])
        XCTAssertEqual(heldAsked, 0)
        XCTAssertEqual(few.moved.count, 0)
        XCTAssertEqual(few.toRead.count, 3)
    }

    /// A photo whose folder is renamed is the file its row was read from (its ctime is still the
    /// one it had then); one renamed itself is taken for changed (a rename sets the ctime, as a
    /// rewrite in place does), and so is a new file given the number of a deleted one, with the
    /// same size and mtime, even under the same name. A row without that ctime (an older index)
    /// holds under its name only.
    func testAFileAtANewPathIsTheRowsOnlyWithTheCtimeItHadWhenRead() throws {
        let fm = FileManager.default
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        try fm.createDirectory(atPath: folder + "/a", withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: folder + "/a/x.jpg", contents: jpeg))
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let row = try XCTUnwrap(scanner.read([("a/x.jpg", FileIdentity(inode: 0, size: -1, mtime: Timestamp(seconds: 0)))]).first)
        XCTAssertNotNil(row.changedWhenRead, "a photo read keeps its ctime")
        /// What the walk finds at `path` now.
        func found(_ path: String) throws -> LibraryWalk.Found {
            var st = stat()
            XCTAssertEqual(stat(folder + "/" + path, &st), 0)
            return LibraryWalk.Found(path: path, identity: FileIdentity(inode: UInt64(st.st_ino), size: Int64(st.st_size),
                                                                              mtime: Timestamp(seconds: Int64(st.st_mtim.tv_sec), nanoseconds: Int(st.st_mtim.tv_nsec))),
                                        changed: Timestamp(seconds: Int64(st.st_ctim.tv_sec), nanoseconds: Int(st.st_ctim.tv_nsec)))
        }
        usleep(20_000)  // (coarse timestamps: a later ctime for what comes next)
        XCTAssertEqual(rename(folder + "/a", folder + "/b"), 0)
        XCTAssertTrue(scanner.isFile(read: row, found: try found("b/x.jpg")), "its folder renamed: the same ctime")
        XCTAssertEqual(rename(folder + "/b/x.jpg", folder + "/b/renamed.jpg"), 0)
        XCTAssertFalse(scanner.isFile(read: row, found: try found("b/renamed.jpg")), "renamed itself: a new ctime")
        // Deleted; then a new file on its number, later.
        XCTAssertEqual(unlink(folder + "/b/renamed.jpg"), 0)
        usleep(20_000)
        XCTAssertTrue(fm.createFile(atPath: folder + "/b/x.jpg", contents: jpeg))
        XCTAssertFalse(scanner.isFile(read: row, found: try found("b/x.jpg")), "another file, though under the same name")
        var old = row
        old.changedWhenRead = nil
        XCTAssertTrue(scanner.isFile(read: old, found: try found("b/x.jpg")), "no ctime: its name is all there is")
        XCTAssertTrue(fm.createFile(atPath: folder + "/b/y.jpg", contents: jpeg))
        XCTAssertFalse(scanner.isFile(read: old, found: try found("b/y.jpg")))
    }

    /// A known photo whose inode, size and mtime are as they were but whose ctime moved since it
    /// was read (rewritten in place, its length and mtime kept, as `exiftool -P
    /// -overwrite_original_in_place -AllDates+=1` leaves it) is read again; an untouched one is not;
    /// a row without that ctime (an older index) is judged by its identity alone.
    func testAPhotoRewrittenInPlaceWithItsIdentityKeptIsReadAgain() throws {
        let fm = FileManager.default
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        for name in ["x.jpg", "y.jpg"] { XCTAssertTrue(fm.createFile(atPath: folder + "/" + name, contents: jpeg)) }
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let unknown = FileIdentity(inode: 0, size: -1, mtime: Timestamp(seconds: 0))
        let rows = Dictionary(uniqueKeysWithValues: scanner.read([("x.jpg", unknown), ("y.jpg", unknown)]).map { ($0.relativePath, $0) })
        XCTAssertEqual(scanner.survey(previous: rows).reused.map(\.relativePath).sorted(), ["x.jpg", "y.jpg"])

        usleep(20_000)  // (coarse timestamps: a later ctime)
        var st = stat()
        XCTAssertEqual(stat(folder + "/x.jpg", &st), 0)
        let fd = open(folder + "/x.jpg", O_WRONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(jpeg.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }, jpeg.count)
        var times = [st.st_atim, st.st_mtim]
        XCTAssertEqual(futimens(fd, &times), 0)
        XCTAssertEqual(close(fd), 0)
        let rewritten = scanner.survey(previous: rows)
        XCTAssertEqual(rewritten.toRead.map(\.path), ["x.jpg"], "its ctime moved")
        XCTAssertEqual(rewritten.toRead.first?.identity, rows["x.jpg"]?.identity, "though its identity did not")
        XCTAssertEqual(rewritten.reused.map(\.relativePath), ["y.jpg"])
        var older = rows
        older["x.jpg"]?.changedWhenRead = nil
        XCTAssertEqual(scanner.survey(previous: older).reused.map(\.relativePath).sorted(), ["x.jpg", "y.jpg"], "no ctime: the identity decides")

        // Moved with its folder: found elsewhere, its ctime kept in the slim record too; the next
        // scan reuses it.
        try fm.createDirectory(atPath: folder + "/f", withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: folder + "/f/w.jpg", contents: jpeg))
        let w = try XCTUnwrap(scanner.read([("f/w.jpg", unknown)]).first)
        XCTAssertEqual(rename(folder + "/f", folder + "/g"), 0)
        let foundRows = Locked<[IndexedFile]>([])
        let lookup = MoveLookup(lookup: { files in
            files.map { $0.path == "g/w.jpg" ? w : nil }
        }, found: { rows in foundRows.withLock { $0 += rows } })
        let renamed = scanner.survey(LibraryScanner.SurveyRequest(moves: lookup), previous: rows)
        let found = foundRows.withLock { $0 }
        XCTAssertEqual(renamed.moved.map(\.file.relativePath), ["g/w.jpg"])
        XCTAssertEqual(found.first?.changedWhenRead, w.changedWhenRead)
        XCTAssertEqual(renamed.moved.first?.file.changedWhenRead, w.changedWhenRead, "kept in the slim record too")
        XCTAssertEqual(scanner.survey(previous: ["g/w.jpg": try XCTUnwrap(found.first)]).reused.map(\.relativePath), ["g/w.jpg"])
    }

    func testAFileGoneOrTurnedIntoALinkAfterTheWalkIsNotListed() throws {
        let fm = FileManager.default
        let jpeg = Data(try SampleJPEG.jpeg(.marker(width: 4, height: 4)))
        for name in ["gone.jpg", "kept.jpg", "linked.jpg"] { XCTAssertTrue(fm.createFile(atPath: folder + "/" + name, contents: jpeg)) }
        XCTAssertTrue(fm.createFile(atPath: "/tmp/albumfs-outside-\(getpid()).jpg", contents: jpeg))
        defer { unlink("/tmp/albumfs-outside-\(getpid()).jpg") }
        let scanner = LibraryScanner(root: folder, rules: ScanRules(dates: CaptureDateRules(now: Timestamp(seconds: 2_000_000_000))))
        let survey = scanner.survey(previous: [:])
        XCTAssertEqual(survey.toRead.count, 3)
        // Between the walk and the read: one file deleted, one replaced by a link out of the library.
        XCTAssertEqual(unlink(folder + "/gone.jpg"), 0)
        XCTAssertEqual(unlink(folder + "/linked.jpg"), 0)
        XCTAssertEqual(symlink("/tmp/albumfs-outside-\(getpid()).jpg", folder + "/linked.jpg"), 0)
        let read = scanner.read(survey.toRead)
        XCTAssertEqual(read.map(\.relativePath), ["kept.jpg"], "no 1970 photo of size -1, no file from outside")
        XCTAssertGreaterThan(read.first?.identity.size ?? 0, 0)
    }
}

extension LibraryScanner {
    /// The scan pipeline as a first mount without an index runs it (nothing known): what it
    /// found below `folder`.
    func scanned(under folder: String = "") -> ScanReport {
        let pipeline = ScanPipeline(scanner: self, index: nil)
        let found = pipeline.scan(ScanRequest(folder: folder, writer: IndexWriter(index: nil, log: { _ in }), moveLookup: nil))
        return pipeline.known.report(folderProblems: found.survey.folderProblems)
    }
}
