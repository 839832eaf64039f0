import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class ThumbnailPipelineTests: XCTestCase {
    func dimensions(_ jpeg: [UInt8]) -> (Int, Int)? {
        guard let h = tjInitDecompress() else { return nil }
        defer { tjDestroy(h) }
        var w: Int32 = 0, hh: Int32 = 0, s: Int32 = 0, c: Int32 = 0
        let rc = jpeg.withUnsafeBufferPointer { tjDecompressHeader3(h, $0.baseAddress, UInt($0.count), &w, &hh, &s, &c) }
        return rc == 0 ? (Int(w), Int(hh)) : nil
    }

    /// A thumbnail is albumfs's own read of the original: the source's access time stays
    /// (relatime would write it here, atime being before mtime).
    func testReadingTheOriginalWritesNoAccessTime() throws {
        let path = NSTemporaryDirectory() + "albumfs-thumb-atime-\(getpid()).jpg"
        defer { unlink(path) }
        let jpeg = try Encoders.jpeg(.marker(width: 8, height: 8))
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(jpeg)))
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        let original = try ThumbnailService.openOriginal(Self.photoOnDisk(path.folderBeforeLastSlash, String(path.nameAfterLastSlash)),
                                                         sourceRoot: path.folderBeforeLastSlash)
        defer { close(original.fd) }
        XCTAssertEqual(original.size, jpeg.count)
        XCTAssertNoThrow(try ThumbnailRenderer().renderWithPlan(file: original.fd, size: original.size, format: .jpeg,
                                                                orientation: 1, box: .default))
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertEqual(st.st_atim.tv_sec, 1_000_000_000)
    }

    func testDCTFactorLeavesAtLeastOneAndAHalfTimesTheBox() {
        // 12 MP 4:3 for a 200x200 box: 1/8 gives 500x375 (≥ 1.5 x 200 high).
        XCTAssertTrue(ThumbnailRenderer.dctFactor(width: 4000, height: 3000, boxWidth: 200, boxHeight: 200) == (1, 8))
        // 6 MP 4:3: 1/8 gives 375x282 (< 1.5 x 200), 1/4 gives 750x563.
        XCTAssertTrue(ThumbnailRenderer.dctFactor(width: 3000, height: 2250, boxWidth: 200, boxHeight: 200) == (1, 4))
        // 24 MP 3:2: 1/8 gives 750x500.
        XCTAssertTrue(ThumbnailRenderer.dctFactor(width: 6000, height: 4000, boxWidth: 200, boxHeight: 200) == (1, 8))
        // Small sources are never enlarged in the DCT.
        XCTAssertTrue(ThumbnailRenderer.dctFactor(width: 300, height: 200, boxWidth: 200, boxHeight: 200) == (1, 1))
        for (w, h) in [(4000, 3000), (6000, 4000), (3024, 4032), (1000, 100), (100, 1000), (2000, 1500)] {
            let f = ThumbnailRenderer.dctFactor(width: w, height: h, boxWidth: 200, boxHeight: 200)
            let sw = JPEGStream.scaled(w, f), sh = JPEGStream.scaled(h, f)
            let cover = max(200.0 / Double(w), 200.0 / Double(h))
            XCTAssertTrue(f == (1, 1) || (Double(sw) >= 1.5 * cover * Double(w) - 1 && Double(sh) >= 1.5 * cover * Double(h) - 1), "\(w)x\(h) → \(f)")
            // The largest reduction that does: the next one down leaves less.
            let smaller = JPEGStream.scalingFactors.filter { Double($0.0) / Double($0.1) < Double(f.0) / Double(f.1) }
                .max { Double($0.0) / Double($0.1) < Double($1.0) / Double($1.1) }
            if let smaller { XCTAssertLessThan(Double(JPEGStream.scaled(h, smaller)), 1.5 * cover * Double(h) + 1, "\(w)x\(h)") }
        }
    }

    func testPaddingGivesExactlyTheSizeAndAValidJPEG() throws {
        let small = try Encoders.jpeg(.marker(width: 50, height: 50))
        for target in [small.count, small.count + 4, small.count + 5, small.count + 1000, small.count + 65_537,
                       small.count + 65_538, small.count + 65_540, small.count + 200_000] {
            let padded = FixedSizeJPEG.pad(small, to: target)
            XCTAssertEqual(padded.count, target)
            XCTAssertEqual(Array(padded.suffix(2)), [0xFF, 0xD9])
            XCTAssertTrue(dimensions(padded)! == (50, 50))
        }
    }

    func testRenderIsExactlyTheBoxAndSizeForManyShapes() throws {
        let renderer = ThumbnailRenderer()
        for (w, h) in [(640, 480), (480, 640), (1000, 100), (37, 900), (16, 16), (3000, 2000)] {
            for box in [ThumbnailBox.default, ThumbnailBox(width: 400, height: 300)!] {
                let jpeg = try Encoders.jpeg(.marker(width: w, height: h))
                let out = try renderer.render(jpeg, format: .jpeg, orientation: 6, box: box)
                XCTAssertEqual(out.count, box.width == 200 ? 30_000 : 90_000, "W x H x 3/4 bytes")
                XCTAssertTrue(dimensions(out)! == (box.width, box.height), "\(w)x\(h) in \(box)")
            }
        }
    }

    func testNoisyImageStillFitsByLoweringQuality() throws {
        var rng = SeededGenerator.forTest(0x7015E)
        let noise = SampleImage(width: 400, height: 400, pixels: (0..<400 * 400 * 3).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let out = try ThumbnailRenderer().render(try Encoders.jpeg(noise, quality: 100), format: .jpeg, orientation: 1, box: .default)
        XCTAssertEqual(out.count, 30_000)
    }

    /// A profile that leaves the picture no room at any quality is dropped, not the thumbnail.
    func testAProfileWithNoRoomLeftIsDroppedNotTheThumbnail() throws {
        var rng = SeededGenerator.forTest(0x7015F)
        let noise = RGBImage(width: 64, height: 64, pixels: (0..<64 * 64 * 3).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let huge = ColorProfile.display(description: String(repeating: "x", count: 8_000), white: (0.9642, 1, 0.8249),
                                        red: (0.6, 0.3, 0), green: (0.2, 0.6, 0.1), blue: (0.15, 0.06, 0.75), gamma: 0x0233)
        let out = try FixedSizeJPEG.encode(noise, size: 8192, profile: huge, encoder: JPEGEncoder())
        XCTAssertEqual(out.count, 8192)
        XCTAssertNil(try carriedProfile(out))
        let room = try FixedSizeJPEG.encode(noise, size: 30_000, profile: huge, encoder: JPEGEncoder())
        XCTAssertTrue(try carriedProfile(room) == huge.bytes, "carried when it fits")
    }

    func testBadInputsThrow() {
        let renderer = ThumbnailRenderer(maxPixels: 10_000)
        XCTAssertThrowsError(try renderer.render([], format: .jpeg, orientation: 1, box: .default))
        XCTAssertThrowsError(try renderer.render([0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0], format: .jpeg, orientation: 1, box: .default))
        XCTAssertThrowsError(try renderer.render([UInt8](try Encoders.jpeg(.marker(width: 64, height: 64))[0..<400]), format: .jpeg, orientation: 1, box: .default))
        XCTAssertThrowsError(try renderer.render(try Encoders.jpeg(.marker(width: 200, height: 100)), format: .jpeg, orientation: 1, box: .default),
                             "over the pixel limit")
        XCTAssertThrowsError(try renderer.render([UInt8](try Encoders.png(.marker(width: 64, height: 64))[0..<60]), format: .png, orientation: 1, box: .default))
        XCTAssertThrowsError(try renderer.render(try Encoders.png(.marker(width: 200, height: 100)), format: .png, orientation: 1, box: .default))
    }

    /// A HEIC comes out upright through its own rotation and mirror boxes (`irot`, `imir`), in
    /// all eight orientations, and is never turned a second time by the EXIF Orientation an
    /// iPhone writes beside them (the renderer is given it, as a photo's is); its colour profile
    /// is carried.
    func testAHEICIsTurnedByItsOwnBoxesOnly() throws {
        let renderer = ThumbnailRenderer()
        let p3 = Encoders.iccProfile(description: "Display P3 (albumfs test)")
        for o in 1...8 {
            let stored = SampleImage.marker(width: 320, height: 240).stored(forOrientation: o)
            let heic = try Encoders.heif(stored, quality: 90, orientation: o, iccProfile: p3)
            let r = try renderer.renderWithPlan(heic, format: .heif, orientation: o, box: .default)
            XCTAssertTrue(r.plan.sourceSize == (320, 240), "\(o): \(r.plan)")
            XCTAssertEqual(r.bytes.count, 30_000)
            XCTAssertEqual(try carriedProfile(r.bytes), p3, "\(o)")
            // 320x240 covers 200x200 as 267x200, cropped from x = 33: the red quarter (80x60)
            // is the thumbnail's top-left 33x50.
            let image = try JPEGStream(bytes: r.bytes).decode(scale: (1, 1)).image
            func mean(_ xs: Range<Int>, _ ys: Range<Int>) -> (r: Int, g: Int) {
                var r = 0, g = 0
                for y in ys { for x in xs { r += Int(image.pixels[(y * image.width + x) * 3]); g += Int(image.pixels[(y * image.width + x) * 3 + 1]) } }
                return (r / (xs.count * ys.count), g / (xs.count * ys.count))
            }
            let topLeft = mean(2..<28, 2..<44), topRight = mean(172..<198, 2..<44), bottomLeft = mean(2..<28, 156..<198)
            XCTAssertTrue(topLeft.r > 180 && topLeft.g < 70, "orientation \(o): top-left \(topLeft)")
            XCTAssertTrue(topRight.r < 180 && bottomLeft.r < 180, "orientation \(o): \(topRight) \(bottomLeft)")
        }
    }

    /// A grid HEIC (as iPhones store photos) is decoded only as far as the tiles the centre
    /// crop keeps, for every orientation (a rotated grid's padded edge lands top or left): those
    /// pixels are the whole decode's, and the thumbnail is the one the whole decode gives.
    func testAGridHEICDecodesOnlyTheTilesItsCropKeeps() throws {
        for orientation in [1, 6, 3, 8] {
            let heic = try Encoders.heif(.marker(width: 1100, height: 700), orientation: orientation, tile: 256)
            let image = try HEIFImage(Original(bytes: heic))
            try image.load(nil)
            let tiling = try XCTUnwrap(image.tiling(), "orientation \(orientation)")
            let whole = DecodedImage(whole: try image.decode())
            XCTAssertTrue((whole.fullWidth, whole.fullHeight) == (orientation > 4 ? (700, 1100) : (1100, 700)))
            for (bw, bh) in [(200, 200), (300, 100), (100, 300)] {
                let what = "orientation \(orientation), \(bw)x\(bh)"
                let crop = CoverCrop(width: image.width, height: image.height, boxWidth: bw, boxHeight: bh).pixels
                let part = try image.decodeTiles(covering: crop, of: tiling)
                XCTAssertTrue(part.x <= crop.x && part.y <= crop.y && part.x + part.image.width >= crop.x + crop.width
                              && part.y + part.image.height >= crop.y + crop.height, what)
                var differing = 0
                for y in 0..<part.image.height {
                    let from = ((part.y + y) * whole.image.width + part.x) * 3, at = y * part.image.width * 3
                    if Array(part.image.pixels[at..<at + part.image.width * 3]) != Array(whole.image.pixels[from..<from + part.image.width * 3]) {
                        differing += 1
                    }
                }
                XCTAssertEqual(differing, 0, "\(what): rows unlike the whole decode's")
                if bw == bh { XCTAssertLessThan(part.image.width * part.image.height, whole.image.width * whole.image.height, what) }
            }
            let rendered = try ThumbnailRenderer().renderWithPlan(heic, format: .heif, orientation: 1, box: .default)
            XCTAssertTrue(rendered.plan.decodedSize.0 * rendered.plan.decodedSize.1 < 1100 * 700, "\(rendered.plan)")
            let a = try jpegPixels(rendered.bytes)
            let b = try jpegPixels(FixedSizeJPEG.encode(Resampler.coverAndCrop(whole, width: 200, height: 200),
                                                        size: FixedSizeJPEG.size(for: 200, 200), encoder: JPEGEncoder()))
            XCTAssertLessThanOrEqual(zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 99, 2, "orientation \(orientation)")
        }
    }

    /// The mount warns of a libheif older than 1.19 (bookworm's 1.15 refuses recent iPhones'
    /// HEICs); the one this machine loads (from bookworm-backports) is recent enough.
    func testTheLibheifVersionCheck() throws {
        XCTAssertFalse(HEIFLibrary.isRecentEnough("1.15.1"))
        XCTAssertFalse(HEIFLibrary.isRecentEnough("0.99"))
        XCTAssertTrue(HEIFLibrary.isRecentEnough("1.19.7"))
        XCTAssertTrue(HEIFLibrary.isRecentEnough("1.20.0"))
        XCTAssertTrue(HEIFLibrary.isRecentEnough("2.0"))
        let loaded = try XCTUnwrap(HEIFLibrary.version)
        XCTAssertTrue(HEIFLibrary.isRecentEnough(loaded), loaded)
        XCTAssertNil(HEIFLibrary.versionWarning(installHint: ""))
    }

    /// An AVIF (AV1 in HEIF, as Android 12+ and browsers save them) is a HEIF image like a HEIC:
    /// its EXIF date read, its thumbnail upright by its own boxes.
    func testAnAVIFIsAHEIFImageToo() throws {
        let avif = try Encoders.heif(SampleImage.marker(width: 320, height: 240).stored(forOrientation: 8), codec: .av1, quality: 80,
                                     orientation: 8)
        XCTAssertEqual(Array(avif[8..<12]), Array("avif".utf8), "an AVIF's major brand")
        let image = try JPEGStream(bytes: try ThumbnailRenderer().render(avif, format: .heif, orientation: 8, box: .default)).decode(scale: (1, 1)).image
        let topLeft = (0..<20).map { Int(image.pixels[($0 * 200 + 10) * 3]) }.reduce(0, +) / 20
        let bottomRight = (180..<200).map { Int(image.pixels[($0 * 200 + 190) * 3]) }.reduce(0, +) / 20
        XCTAssertGreaterThan(topLeft, 180, "the red quarter is top-left")
        XCTAssertLessThan(bottomRight, 180)
    }

    /// A HEIC's embedded thumbnail stands for it when it covers the box without being enlarged
    /// (libvips' rule for HEIF), the smallest such; a smaller one does not; turned upright as
    /// the main image is (its own boxes).
    func testAHEICsEmbeddedThumbnailIsUsedWhenItCoversTheBox() throws {
        let renderer = ThumbnailRenderer()
        let stored = SampleImage.marker(width: 1600, height: 1200).stored(forOrientation: 6)
        let large = try Encoders.heif(stored, quality: 90, orientation: 6, thumbnail: 400)
        let used = try renderer.renderWithPlan(large, format: .heif, orientation: 6, box: .default)
        XCTAssertTrue(used.plan.preview.map { $0 == (400, 300) } ?? false, "\(used.plan)")
        XCTAssertTrue(used.plan.decodedSize == (400, 300), "\(used.plan)")
        XCTAssertTrue(used.plan.sourceSize == (1600, 1200), "\(used.plan)")
        let image = try JPEGStream(bytes: used.bytes).decode(scale: (1, 1)).image
        let topLeft = (5..<40).map { Int(image.pixels[($0 * 200 + 10) * 3]) }.reduce(0, +) / 35
        let bottomRight = (160..<195).map { Int(image.pixels[($0 * 200 + 190) * 3]) }.reduce(0, +) / 35
        XCTAssertGreaterThan(topLeft, 180, "upright: the red quarter top-left")
        XCTAssertLessThan(bottomRight, 180)
        // 240x180 does not cover 200x200: the image itself is decoded.
        let small = try Encoders.heif(stored, quality: 90, orientation: 6, thumbnail: 240)
        let whole = try renderer.renderWithPlan(small, format: .heif, orientation: 6, box: .default)
        XCTAssertNil(whole.plan.preview, "\(whole.plan)")
        XCTAssertTrue(whole.plan.decodedSize == (1600, 1200), "\(whole.plan)")
        // A larger box than the thumbnail: the image itself.
        XCTAssertNil(try renderer.renderWithPlan(large, format: .heif, orientation: 6, box: try XCTUnwrap(ThumbnailBox("400x400"))).plan.preview)
    }

    /// A HEIC whose embedded thumbnail is damaged (its coded data zeroed, as a bad sector or a
    /// cut copy leaves it) gets its thumbnail from the image itself, as a JPEG whose preview is
    /// damaged does.
    func testAHEICWithADamagedEmbeddedThumbnailFallsBackToTheImage() throws {
        let renderer = ThumbnailRenderer()
        var heic = try Encoders.heif(SampleImage.marker(width: 800, height: 600), quality: 90, thumbnail: 400)
        XCTAssertNotNil(try renderer.renderWithPlan(heic, format: .heif, orientation: 1, box: .default).plan.preview)
        let container = HEIFContainer(size: Int64(heic.count)) { (offset: Int64, count: Int) -> [UInt8] in
            Array(heic[Int(offset)..<min(heic.count, Int(offset) + count)])
        }
        let items = try XCTUnwrap(container.items)
        let thumbnail = try XCTUnwrap(items.items.first { $0.key != items.primary && $0.value.type == "hvc1" }?.value)
        for extent in thumbnail.extents {
            for i in Int(extent.offset)..<Int(extent.offset + extent.length) { heic[i] = 0 }
        }
        let r = try renderer.renderWithPlan(heic, format: .heif, orientation: 1, box: .default)
        XCTAssertNil(r.plan.preview, "\(r.plan)")
        XCTAssertTrue(r.plan.decodedSize == (800, 600), "\(r.plan)")
        XCTAssertEqual(try JPEGStream(bytes: r.bytes).decode(scale: (1, 1)).image.width, 200)
    }

    /// A HEIC with an alpha channel (an iOS sticker) is composited onto white, as a PNG is.
    func testAHEICsAlphaIsCompositedOntoWhite() throws {
        for (alpha, expected) in [(UInt8(255), (255, 0)), (0, (255, 255)), (128, (255, 127))] {
            let heic = try Encoders.heif(.solid(width: 64, height: 64, 255, 0, 0), quality: 95, alpha: alpha)
            let image = try JPEGStream(bytes: try ThumbnailRenderer().render(heic, format: .heif, orientation: 1, box: .default)).decode(scale: (1, 1)).image
            let centre = (100 * 200 + 100) * 3
            XCTAssertEqual(Double(image.pixels[centre]), Double(expected.0), accuracy: 12, "alpha \(alpha): red")
            XCTAssertEqual(Double(image.pixels[centre + 1]), Double(expected.1), accuracy: 12, "alpha \(alpha): green")
        }
    }

    /// A HEIC with an auxiliary depth image (an iPhone's portrait photo) or an HDR gain map (an
    /// iPhone's photo since iOS 14.1) renders its primary image, the auxiliary image neither shown
    /// nor taken for an alpha channel. (libheif writes alpha as an auxiliary image, `auxC`
    /// `urn:mpeg:hevc:2015:auxid:1`; the same file with that URN made depth's or Apple's gain
    /// map's holds such an image instead: `heif-info` reads the file, the depth image as one.)
    func testAHEICWithADepthImageOrAGainMapRendersItsPrimaryImage() throws {
        let withAlpha = try Encoders.heif(.solid(width: 64, height: 64, 255, 0, 0), quality: 95, alpha: 0)
        let centre = (100 * 200 + 100) * 3
        let transparent = try JPEGStream(bytes: try ThumbnailRenderer().render(withAlpha, format: .heif, orientation: 1, box: .default)).decode(scale: (1, 1)).image
        XCTAssertEqual(Double(transparent.pixels[centre + 1]), 255, accuracy: 12, "as an alpha channel (0) it is white: the patch is what changes it")
        for urn in ["urn:mpeg:hevc:2015:auxid:2", Encoders.appleGainMapURN] {
            let heic = try Encoders.replacingAuxiliaryType("urn:mpeg:hevc:2015:auxid:1", with: urn, in: withAlpha)
            let info = try heifInfo(heic)
            // (heif-info names alpha and depth images; any other auxiliary image it reads without a word.)
            XCTAssertTrue(info.contains(urn == Encoders.appleGainMapURN ? "depth channel: no" : "depth channel: yes"), "\(urn): \(info)")
            XCTAssertTrue(info.contains("alpha channel: no"), "\(urn): \(info)")
            let image = try JPEGStream(bytes: try ThumbnailRenderer().render(heic, format: .heif, orientation: 1, box: .default)).decode(scale: (1, 1)).image
            XCTAssertEqual(Double(image.pixels[centre]), 255, accuracy: 12, "\(urn): the primary image's red")
            XCTAssertEqual(Double(image.pixels[centre + 1]), 0, accuracy: 12, "\(urn): not composited: no alpha")
            let header = try XCTUnwrap(heic.withUnsafeBytes { MetadataReader.read(bytes: $0) })
            XCTAssertEqual(header.format, .heif)
            XCTAssertEqual(header.evidence.problems, [], urn)
        }
    }

    /// What `heif-info` (libheif's own tool) says of a file.
    func heifInfo(_ heif: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "albumfs-heif-info-\(getpid()).heic"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(heif)))
        defer { unlink(path) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/heif-info")
        p.arguments = [path]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text
    }

    /// HEIF renders running at once (a file manager opening a folder of HEICs asks for many)
    /// each get the same thumbnail as one alone.
    func testHEICsRenderedAtOnceAreEachWhole() throws {
        let heic = try Encoders.heif(.marker(width: 640, height: 480), quality: 80)
        let renderer = ThumbnailRenderer()
        let alone = try renderer.render(heic, format: .heif, orientation: 1, box: .default)
        let results = Locked<[[UInt8]?]>(Array(repeating: nil, count: 12))
        DispatchQueue.concurrentPerform(iterations: 12) { i in
            let bytes = try? renderer.render(heic, format: .heif, orientation: 1, box: .default)
            results.withLock { $0[i] = bytes }
        }
        XCTAssertEqual(results.withLock { $0 }, Array(repeating: alone, count: 12))
    }

    /// A HEIC cut short, over the pixel limit, or damaged anywhere: an error, never a trap.
    func testDamagedHEICsAreErrors() throws {
        let heic = try Encoders.heif(.marker(width: 256, height: 192))
        let renderer = ThumbnailRenderer()
        XCTAssertNoThrow(try renderer.render(heic, format: .heif, orientation: 1, box: .default))
        XCTAssertThrowsError(try ThumbnailRenderer(maxPixels: 10_000).render(heic, format: .heif, orientation: 1, box: .default))
        for cut in [0, 20, 300, heic.count / 2, heic.count - 1] {
            XCTAssertThrowsError(try renderer.render(Array(heic.prefix(cut)), format: .heif, orientation: 1, box: .default), "cut at \(cut)")
        }
        var random = SeededGenerator.forTest(0x4E1C)
        var rendered = 0
        for _ in 0..<200 {
            var bytes = heic
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                _ = try renderer.render(bytes, format: .heif, orientation: 1, box: .default)
                rendered += 1
            } catch {
                XCTAssertFalse(error.description.contains("\n"), "one line: \(error), \(random)")
            }
        }
        XCTAssertGreaterThan(rendered, 0, "some damage (in the image data) still decodes: \(random)")
    }

    func testSingleFlightAndRememberedFailures() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/a.jpg", contents: Data(try Encoders.jpeg(.marker(width: 3000, height: 2000)))))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/bad.jpg", contents: Data([0xFF, 0xD8, 0xFF])))
        let logged = LoggedLines()
        let service = ThumbnailService(boxes: [.default], cache: try ThumbnailCache(directory: folder + "/cache", maxBytes: 1 << 30), log: logged.append)
        // Each file its identity as on disk (the cache key is made from it, and the render checks it).
        @Sendable func photo(_ name: String) -> Photo { Self.photoOnDisk(folder, name) }
        var results = [[UInt8]?](repeating: nil, count: 16)
        let target = photo("a.jpg")
        results.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer  // each thread writes its own slot
            DispatchQueue.concurrentPerform(iterations: 16) { i in
                out[i] = try? service.thumbnail(of: target, sourceRoot: folder, box: .default).get()
            }
        }
        XCTAssertEqual(service.renderCount, 1)
        XCTAssertTrue(results.allSatisfy { $0 != nil && $0 == results[0] })
        for _ in 0..<3 { XCTAssertNil(try? service.thumbnail(of: photo("bad.jpg"), sourceRoot: folder, box: .default).get()) }
        XCTAssertEqual(service.renderCount, 2)
        XCTAssertEqual(service.failures().count, 1)
        // An original not at its path is tried again on the next read (its folder renamed back,
        // the file, and so the key, unchanged); the service neither remembers nor logs it, nor
        // counts a render: the filesystem follows the move, or says the file is gone (ENOENT).
        let later = photo("later.jpg")  // (not there yet)
        for _ in 0..<2 {
            let r = service.thumbnailOrError(of: later, sourceRoot: folder, box: .default)
            XCTAssertEqual(r.map { _ in true }, Result<Bool, ThumbnailError>.failure(ThumbnailError("cannot open the original: No such file or directory", isMissing: true)))
            XCTAssertEqual(service.thumbnail(of: later, sourceRoot: folder, box: .default).map { _ in true }, .failure(.notFound))
        }
        XCTAssertEqual(service.failures().count, 1, "not remembered")
        XCTAssertEqual(logged.count(where: { $0.contains("later.jpg") }), 0, "not logged by the service")
        XCTAssertEqual(service.renderCount, 2, "no render")
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/later.jpg", contents: Data(try Encoders.jpeg(.marker(width: 300, height: 200)))))
        XCTAssertNotNil(try? service.thumbnail(of: photo("later.jpg"), sourceRoot: folder, box: .default).get())
        XCTAssertEqual(service.renderCount, 3)
        // The bad file repaired in place, its size and mtime kept: read again by the scan, the
        // photo has another ctime when read, and its thumbnail is tried again.
        let bad = photo("bad.jpg")
        let repairedBytes = try Encoders.jpeg(.marker(width: 300, height: 200))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/bad.jpg", contents: Data(repairedBytes)))
        let repaired = photo("bad.jpg")
        XCTAssertNotEqual(repaired.changedWhenRead, bad.changedWhenRead)
        XCTAssertNotNil(try? service.thumbnail(of: repaired, sourceRoot: folder, box: .default).get())
        XCTAssertEqual(service.renderCount, 4)
        XCTAssertEqual(service.failures().map(\.photo.changedWhenRead), [bad.changedWhenRead], "the failure is of the photo as it was")
    }

    func testThumbnailsAskedForAheadAreMadeInTheBackgroundOnceAndNoMoreAtOnceThanAllowed() throws {
        let folder = NSTemporaryDirectory() + "albumfs-ahead-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let big = Data(try Encoders.jpeg(.marker(width: 6000, height: 4000)))
        for i in 0..<8 { XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/\(i).jpg", contents: big + Data([UInt8(i)]))) }
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/bad.jpg", contents: Data([0xFF, 0xD8, 0xFF])))
        @Sendable func photo(_ name: String) -> Photo { Self.photoOnDisk(folder, name) }
        func settled(_ service: ThumbnailService) -> Int {
            var last = -1
            while service.renderCount != last { last = service.renderCount; usleep(300_000) }
            return last
        }
        let none = ThumbnailService(boxes: [.default], cache: try ThumbnailCache(directory: folder + "/none", maxBytes: 1 << 30), log: { _ in })
        none.prepare(photo("0.jpg"), sourceRoot: folder, box: .default)
        XCTAssertEqual(settled(none), 0, "nothing made ahead by a service told none")
        let reference = try none.thumbnail(of: photo("0.jpg"), sourceRoot: folder, box: .default).get()

        let logged = LoggedLines()
        let service = ThumbnailService(boxes: [.default], cache: try ThumbnailCache(directory: folder + "/cache", maxBytes: 1 << 30),
                                       ahead: 2, log: logged.append)
        // Eight asked for at once (each a 24 MP decode): two are made, the others dropped.
        for i in 0..<8 { service.prepare(photo("\(i).jpg"), sourceRoot: folder, box: .default) }
        XCTAssertEqual(settled(service), 2)
        XCTAssertEqual(service.renderAheadCount, 2)
        // What was made ahead is what a read gets, and is not made again.
        XCTAssertEqual(try service.thumbnail(of: photo("0.jpg"), sourceRoot: folder, box: .default).get(), reference)
        service.prepare(photo("0.jpg"), sourceRoot: folder, box: .default)
        XCTAssertEqual(settled(service), 2, "made already")
        // A failure made ahead is remembered and logged once, as a read's is, and the thumbnail
        // stays listed until a read meets it.
        service.prepare(photo("bad.jpg"), sourceRoot: folder, box: .default)
        XCTAssertEqual(settled(service), 3)
        service.prepare(photo("bad.jpg"), sourceRoot: folder, box: .default)
        XCTAssertEqual(service.failures().count, 1)
        XCTAssertEqual(service.unrenderable().count, 0, "listed until read")
        XCTAssertNil(try? service.thumbnail(of: photo("bad.jpg"), sourceRoot: folder, box: .default).get())
        XCTAssertEqual(settled(service), 3, "not tried again")
        XCTAssertEqual(service.unrenderable().map(\.relativePath), ["bad.jpg"], "unlisted once read")
        XCTAssertEqual(logged.count(where: { $0.contains("bad.jpg") }), 1)
    }

    /// The file at `path` opened as a render opens it, as scanned now.
    static func openOriginal(_ path: String) throws(ThumbnailError) -> OpenedSource {
        let root = path.folderBeforeLastSlash
        return try ThumbnailService.openOriginal(photoOnDisk(root, String(path.nameAfterLastSlash)), sourceRoot: root)
    }

    /// A photo as a scan of `root` would see `name` now: its identity and ctime from `stat`
    /// (a file not there: made-up numbers that no file has).
    static func photoOnDisk(_ root: String, _ name: String, orientation: Int = 1) -> Photo {
        var st = stat()
        let there = stat(root + "/" + name, &st) == 0
        return Photo(relativePath: name, format: .jpeg,
                     identity: there ? FileIdentity(inode: UInt64(st.st_ino), size: Int64(st.st_size), mtime: Timestamp(st.st_mtim))
                                     : FileIdentity(inode: 1, size: 3, mtime: Timestamp(seconds: 4)),
                     capture: CaptureDecision(time: CaptureTime(local: LocalDateTime(year: 2020, month: 1, day: 1)), source: .fileName),
                     captureInstant: Timestamp(seconds: 0), screenshot: ScreenshotDecision(isScreenshot: false, reason: ""),
                     orientation: orientation, problems: [], changedWhenRead: there ? Timestamp(st.st_ctim) : nil)
    }

    /// A cache that cannot take a thumbnail (a full disk; here its subfolder is a file: ENOTDIR)
    /// loses nothing: the thumbnail is served and kept in memory, and the reason is said once.
    /// With no cache to write, the last `memoryCap` thumbnails are kept in memory: the older ones
    /// are made again when asked for, the recent ones are not.
    func testThumbnailsKeptInMemoryAreCapped() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-memory-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let service = ThumbnailService(boxes: [.default], cache: nil, memoryCap: 3, log: { _ in })
        var photos: [Photo] = []
        for i in 0..<5 {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/p\(i).jpg", contents: Data(try Encoders.jpeg(.marker(width: 64, height: 48, tint: UInt8(i * 40))))))
            photos.append(Self.photoOnDisk(folder, "p\(i).jpg"))
        }
        for photo in photos { _ = try service.thumbnail(of: photo, sourceRoot: folder, box: .default).get() }
        XCTAssertEqual(service.renderCount, 5)
        for photo in photos.suffix(3) { _ = try service.thumbnail(of: photo, sourceRoot: folder, box: .default).get() }
        XCTAssertEqual(service.renderCount, 5, "the last three are in memory")
        _ = try service.thumbnail(of: photos[0], sourceRoot: folder, box: .default).get()
        XCTAssertEqual(service.renderCount, 6, "the first was let go")
    }

    /// The pipeline's version is part of every cache key: a thumbnail made by an earlier pipeline
    /// is never served, and is made again once.
    func testANewPipelineVersionMakesNewKeys() {
        let identity = FileIdentity(inode: 7, size: 100, mtime: Timestamp(seconds: 5))
        func key(_ version: Int) -> String {
            ThumbnailCache.key(path: "a.jpg", identity: identity, changedWhenRead: nil, orientation: 1, box: .default, pipeline: version)
        }
        XCTAssertEqual(key(ThumbnailRenderer.pipelineVersion), ThumbnailCache.key(path: "a.jpg", identity: identity, changedWhenRead: nil,
                                                                                   orientation: 1, box: .default))
        XCTAssertNotEqual(key(ThumbnailRenderer.pipelineVersion), key(ThumbnailRenderer.pipelineVersion - 1))
        XCTAssertNotEqual(key(3), key(4))
        XCTAssertEqual(key(3), key(3))
    }

    func testACacheThatCannotBeWrittenIsSaidOnce() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-full-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder + "/cache", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try XCTUnwrap(ThumbnailCache(directory: folder + "/cache", maxBytes: 1 << 30))
        let logged = LoggedLines()
        let service = ThumbnailService(boxes: [.default], cache: cache, log: logged.append)
        var photos: [Photo] = []
        for i in 0..<3 {
            let name = "p\(i).jpg"
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(try Encoders.jpeg(.marker(width: 300, height: 200)))))
            let photo = Self.photoOnDisk(folder, name)
            // Where its thumbnail would go is taken by a file.
            let key = ThumbnailCache.key(of: photo, box: .default)
            _ = FileManager.default.createFile(atPath: folder + "/cache/" + key.prefix(2), contents: Data())
            photos.append(photo)
        }
        for photo in photos + photos {
            let bytes = try service.thumbnail(of: photo, sourceRoot: folder, box: .default).get()
            XCTAssertEqual(bytes.count, Int(service.size(for: .default)))
        }
        XCTAssertEqual(service.renderCount, 3, "served from memory the second time")
        XCTAssertEqual(logged.count(where: { $0.contains("cannot be written (Not a directory)") }), 1, "said once")
        XCTAssertEqual(service.cacheBytes, 0)
        XCTAssertEqual(service.cacheWriteFailure, Errno(rawValue: ENOTDIR))
        // Room again (the files in the way gone): the next write succeeds and the status says so.
        for prefix in Set(photos.map { ThumbnailCache.key(of: $0, box: .default).prefix(2) }) {
            unlink(folder + "/cache/" + prefix)
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/p3.jpg", contents: Data(try Encoders.jpeg(.marker(width: 300, height: 200)))))
        let later = Self.photoOnDisk(folder, "p3.jpg")
        XCTAssertNoThrow(try service.thumbnail(of: later, sourceRoot: folder, box: .default).get())
        XCTAssertNil(service.cacheWriteFailure)
    }

    func testCacheWritesAtomicallyAndEvictsLeastRecentlyUsed() throws {
        let folder = NSTemporaryDirectory() + "albumfs-cache-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = try XCTUnwrap(ThumbnailCache(directory: folder, maxBytes: 10_000))
        let blob = [0xFF, 0xD8] + [UInt8](repeating: 7, count: 2996) + [0xFF, 0xD9]
        // What another daemon sharing the folder is writing (its temporary file, oldest of all).
        XCTAssertEqual(mkdir(folder + "/aa", 0o700), 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/aa/.tmp-1-2", contents: Data(blob)))
        // ... and what a writer that died left, two hours ago.
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/aa/.tmp-3-4", contents: Data(blob)))
        var twoHoursAgo = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
        XCTAssertEqual(utimensat(AT_FDCWD, folder + "/aa/.tmp-3-4", &twoHoursAgo, 0), 0)
        usleep(20_000)
        for k in ["aa01", "aa02", "aa03"] {
            XCTAssertNoThrow(try cache.write(k, blob))
            usleep(20_000)  // distinct mtimes
        }
        XCTAssertNotNil(cache.read("aa01", expectedSize: 3000))  // now the most recently used
        usleep(20_000)
        XCTAssertNoThrow(try cache.write("aa04", blob))  // 12,000 > 10,000: evict to ≤ 9,000
        XCTAssertNotNil(cache.read("aa01", expectedSize: 3000))
        XCTAssertNil(cache.read("aa02", expectedSize: 3000), "the least recently used went first")
        XCTAssertNotNil(cache.read("aa04", expectedSize: 3000))
        XCTAssertLessThanOrEqual(cache.bytesUsed, 9_000)
        XCTAssertNil(cache.read("aa04", expectedSize: 2999), "a file of the wrong size is ignored")
        XCTAssertNoThrow(try cache.write("aa05", [UInt8](repeating: 7, count: 3000)))
        XCTAssertNil(cache.read("aa05", expectedSize: 3000), "the right size, but no JPEG from end to end: ignored")
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.contains(".tmp") }
        XCTAssertEqual(leftovers, ["aa/.tmp-1-2"], "another writer's file in the making is never evicted, a dead one's is; this one's leave none")
        XCTAssertNil(try ThumbnailCache(directory: "/proc/albumfs-cannot", maxBytes: 1 << 20))
    }

    /// A desktop thumbnail fits its side: a camera's 160x120 preview serves the 128 px `normal`
    /// one (its longer side covers it), not the 256 px `large` one, made from the photo itself.
    /// (Preview and photo differ in colour, so the pixels say which was decoded.)
    func testADesktopThumbnailFitsFromA160x120Preview() throws {
        let main = try Encoders.jpeg(.solid(width: 1600, height: 1200, 220, 20, 20))
        let camera = Encoders.withMPFPreview(main, preview: try Encoders.jpeg(.solid(width: 160, height: 120, 20, 20, 220)))
        let path = NSTemporaryDirectory() + "albumfs-fit-\(getpid()).jpg"
        defer { unlink(path) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(camera)))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let renderer = ThumbnailRenderer()
        let normal = try renderer.fitting(file: fd, size: camera.count, format: .jpeg, orientation: 1, side: 128)
        XCTAssertEqual([normal.width, normal.height], [128, 96])
        XCTAssertGreaterThan(normal.pixels[2], 150, "blue: the preview's pixels")
        let large = try renderer.fitting(file: fd, size: camera.count, format: .jpeg, orientation: 1, side: 256)
        XCTAssertEqual([large.width, large.height], [256, 192])
        XCTAssertGreaterThan(large.pixels[0], 150, "red: the photo's own")
    }

    func testMPFPreviewIsUsedWhenLargeEnough() throws {
        let main = try Encoders.jpeg(.solid(width: 2400, height: 1600, 220, 20, 20))
        let preview = try Encoders.jpeg(.solid(width: 960, height: 640, 20, 200, 20))
        let camera = Encoders.withMPFPreview(main, preview: preview)
        XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: camera)).count, 1)
        let renderer = ThumbnailRenderer()
        let small = try renderer.renderWithPlan(camera, format: .jpeg, orientation: 1, box: .default)
        XCTAssertTrue(small.plan.preview! == (960, 640), "\(small.plan)")
        // A box the preview cannot serve at 2x falls back to the full image.
        let big = try renderer.renderWithPlan(camera, format: .jpeg, orientation: 1, box: ThumbnailBox(width: 600, height: 600)!)
        XCTAssertNil(big.plan.preview, "\(big.plan)")
        // A preview of another shape (letterboxed) is never used.
        let wide = Encoders.withMPFPreview(main, preview: try Encoders.jpeg(.solid(width: 960, height: 540, 20, 200, 20)))
        XCTAssertNil(try renderer.renderWithPlan(wide, format: .jpeg, orientation: 1, box: .default).plan.preview)
        // An Ultra HDR or iPhone HDR photo's gain map (MP type 0) has the photo's shape but is
        // no picture of it: never a preview, whatever its size; the thumbnail is the photo's.
        let gainMap = try Encoders.jpeg(.solid(width: 960, height: 640, 128, 128, 128), kind: .grayscale)
        let hdr = Encoders.withMPFPreview(main, preview: gainMap, type: 0x000000)
        XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: hdr)).count, 0)
        let fromMain = try renderer.renderWithPlan(hdr, format: .jpeg, orientation: 1, box: .default)
        XCTAssertNil(fromMain.plan.preview, "\(fromMain.plan)")
        let pixel = try JPEGStream(bytes: fromMain.bytes).decode(scale: (1, 1)).image.pixels
        XCTAssertEqual(Double(pixel[0]), 220, accuracy: 8, "the photo's red, not the map's grey")
        XCTAssertEqual(Double(pixel[1]), 20, accuracy: 8)
        // Fill bytes before the MPF segment (encoders may write a few) hide nothing.
        let filled = Array(camera[0..<2]) + [0xFF, 0xFF, 0xFF] + Array(camera[2...])
        XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: filled)).count, 1)
        let filledPlan = try renderer.renderWithPlan(filled, format: .jpeg, orientation: 1, box: .default).plan
        XCTAssertEqual(filledPlan.preview?.0, 960, "\(filledPlan)")
        // The full-HD large thumbnail type serves too.
        XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: Encoders.withMPFPreview(main, preview: preview, type: 0x010002))).count, 1)
        // An MP Entry table said to reach past its segment is broken, whatever its first entries
        // say (one more entry than the segment holds; 4 GB of them, which were walked one by one).
        let mpEntry = try XCTUnwrap((0..<camera.count - 4).first { camera[$0] == 0x02 && camera[$0 + 1] == 0xB0 && camera[$0 + 2] == 7 })
        for count: [UInt8] in [[48, 0, 0, 0], [0xF0, 0xFF, 0xFF, 0xFF]] {
            var long = camera
            long.replaceSubrange(mpEntry + 4..<mpEntry + 8, with: count)
            XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: long)).count, 0, "\(count)")
        }
        // A preview whose data is damaged (cut short) stands for nothing: the photo is decoded.
        let damaged = Encoders.withMPFPreview(main, preview: Array(preview.prefix(preview.count / 2)))
        XCTAssertEqual(try EmbeddedPreviews.find(in: Original(bytes: damaged)).count, 1)
        XCTAssertThrowsError(try JPEGStream(bytes: Array(preview.prefix(preview.count / 2))).decode(scale: (1, 8), whole: true))
        let fromPhoto = try renderer.renderWithPlan(damaged, format: .jpeg, orientation: 1, box: .default)
        XCTAssertNil(fromPhoto.plan.preview, "\(fromPhoto.plan)")
        XCTAssertEqual(fromPhoto.bytes, try renderer.render(main, format: .jpeg, orientation: 1, box: .default))
        // Broken MPF offsets are ignored, not followed.
        var broken = camera
        broken[60] ^= 0xFF
        XCTAssertNoThrow(try renderer.render(broken, format: .jpeg, orientation: 1, box: .default))
    }

    /// A PNG chunk whose CRC is wrong while its data is whole (encoders that write bad CRCs exist)
    /// is used as it is, as libvips and browsers do: the same thumbnail as the intact file, whole
    /// and on the row path. Data that is itself damaged still fails.
    func testAPNGWithAWrongChecksumIsDecoded() throws {
        let png = try Encoders.png(.marker(width: 300, height: 200))
        let renderer = ThumbnailRenderer()
        var rowPath = ThumbnailRenderer()
        rowPath.shrinkPNGAbovePixels = 0
        let intact = try renderer.render(png, format: .png, orientation: 1, box: .default)
        XCTAssertEqual(try rowPath.render(png, format: .png, orientation: 1, box: .default), intact)
        for type in ["IHDR", "IDAT"] {
            let badCRC = Encoders.withWrongCRC(of: type, in: png)
            XCTAssertNotEqual(badCRC, png)
            XCTAssertEqual(try renderer.render(badCRC, format: .png, orientation: 1, box: .default), intact, type)
            XCTAssertEqual(try rowPath.render(badCRC, format: .png, orientation: 1, box: .default), intact, "\(type), row path")
        }
        let idat = try XCTUnwrap(Encoders.pngChunk("IDAT", in: png))
        var damaged = png
        damaged[idat.offset + 8 + idat.length / 2] ^= 0x5A
        XCTAssertThrowsError(try renderer.render(damaged, format: .png, orientation: 1, box: .default))
        XCTAssertThrowsError(try rowPath.render(damaged, format: .png, orientation: 1, box: .default))
    }

    /// A 16-bit PNG with no gAMA or sRGB chunk holds sRGB values (browsers, ImageMagick and libvips
    /// show mid-grey 0x8080 as 128; libpng's simplified API took it for linear light: 186); one
    /// tagged linear (`gAMA` 1.0) is still converted.
    func test16BitPNGWithoutGammaIsSRGB() throws {
        let colour = SampleImage.solid(width: 40, height: 30, 128, 200, 30)
        // (libpng goes back from linear with a 2.2 power, not sRGB's curve: 30 comes back as 35.)
        for (kind, tolerance): (Encoders.PNGKind, Double) in [(.rgb16Untagged, 1), (.rgb16, 6)] {
            let decoded = try PNGDecoder.decode(try Encoders.png(colour, kind: kind), maxPixels: 1 << 20)
            for (i, v) in [128, 200, 30].enumerated() {
                XCTAssertEqual(Double(decoded.pixels[i]), Double(v), accuracy: tolerance, "\(kind) channel \(i)")
            }
        }
        let untagged = try Encoders.png(colour, kind: .rgb16Untagged)
        XCTAssertEqual(untagged[24], 16, "16 bits a channel")
        XCTAssertNil(untagged.firstRange(of: Array("gAMA".utf8)))
        XCTAssertNil(untagged.firstRange(of: Array("sRGB".utf8)))
    }

    /// The profile a thumbnail carries, read back by libjpeg (`jpeg_read_icc_profile`).
    func carriedProfile(_ thumbnail: [UInt8]) throws -> [UInt8]? {
        try JPEGStream(bytes: thumbnail).iccProfile()
    }

    /// A photo's RGB colour profile goes into its thumbnail unchanged, pixels as they were
    /// (vipsthumbnail's default): from a JPEG's APP2 segments, a PNG's `iCCP` chunk (both the
    /// whole decode and the row path), a camera JPEG whose preview is decoded.
    func testTheOriginalsColourProfileIsCarriedIntoTheThumbnail() throws {
        let p3 = Encoders.iccProfile(description: "Display P3 (albumfs test)")
        XCTAssertNotNil(ColorProfile(p3))
        let image = SampleImage.marker(width: 600, height: 400)
        let plainJPEG = try Encoders.jpeg(image)
        let renderer = ThumbnailRenderer()
        let plain = try renderer.render(plainJPEG, format: .jpeg, orientation: 1, box: .default)
        XCTAssertNil(try carriedProfile(plain))
        let tagged = try renderer.renderWithPlan(Encoders.insertingICCProfile(p3, into: plainJPEG), format: .jpeg, orientation: 6, box: .default)
        XCTAssertEqual(try carriedProfile(tagged.bytes), p3)
        XCTAssertEqual(tagged.plan.profileBytes, p3.count, "\(tagged.plan)")
        XCTAssertEqual(tagged.bytes.count, 30_000)
        XCTAssertTrue(tagged.plan.description.hasSuffix("its \(p3.count)-byte ICC profile kept"), tagged.plan.description)
        // Same pixels as the untagged photo's thumbnail (rotated alike).
        let upright = try renderer.render(plainJPEG, format: .jpeg, orientation: 6, box: .default)
        XCTAssertTrue(try JPEGStream(bytes: tagged.bytes).decode(scale: (1, 1)).image.pixels
                      == JPEGStream(bytes: upright).decode(scale: (1, 1)).image.pixels, "same pixels")
        // PNG: decoded whole, and on the row path.
        let png = try Encoders.png(.marker(width: 1200, height: 800), kind: .tagged(iccProfile: p3))
        XCTAssertEqual(try carriedProfile(try renderer.render(png, format: .png, orientation: 1, box: .default)), p3)
        var rowPath = ThumbnailRenderer()
        rowPath.shrinkPNGAbovePixels = 0
        let shrunk = try rowPath.renderWithPlan(png, format: .png, orientation: 1, box: .default)
        XCTAssertEqual(shrunk.plan.dctScale.1, 2, "\(shrunk.plan)")
        XCTAssertEqual(try carriedProfile(shrunk.bytes), p3)
        // A camera JPEG rendered from its MPF preview keeps the main image's profile.
        let main = Encoders.insertingICCProfile(p3, into: try Encoders.jpeg(.solid(width: 2400, height: 1600, 220, 20, 20)))
        let camera = Encoders.withMPFPreview(main, preview: try Encoders.jpeg(.solid(width: 960, height: 640, 20, 200, 20)))
        let fromPreview = try renderer.renderWithPlan(camera, format: .jpeg, orientation: 1, box: .default)
        XCTAssertNotNil(fromPreview.plan.preview)
        XCTAssertEqual(try carriedProfile(fromPreview.bytes), p3)
    }

    /// Profiles a thumbnail must not carry: not RGB (CMYK ink values, grey), too large for its
    /// size, or not an ICC profile at all. The thumbnail is made anyway, untagged.
    func testProfilesThatCannotDescribeTheThumbnailAreLeftOut() throws {
        let image = SampleImage.marker(width: 600, height: 400)
        let jpeg = try Encoders.jpeg(image)
        var wrongSize = Encoders.iccProfile(description: "wrong size")
        wrongSize[3] ^= 0x10
        var notICC = Encoders.iccProfile(description: "no acsp")
        notICC[36] = UInt8(ascii: "x")
        let cases: [(String, [UInt8])] = [
            ("CMYK", Encoders.iccProfile(description: "ink", colourSpace: "CMYK")),
            ("GRAY", Encoders.iccProfile(description: "grey", colourSpace: "GRAY")),
            ("over a quarter of 30,000 bytes", Encoders.iccProfile(description: String(repeating: "x", count: 7_600))),
            ("size field wrong", wrongSize),
            ("no acsp signature", notICC),
        ]
        for (why, profile) in cases {
            let out = try ThumbnailRenderer().renderWithPlan(Encoders.insertingICCProfile(profile, into: jpeg), format: .jpeg,
                                                             orientation: 1, box: .default)
            XCTAssertNil(try carriedProfile(out.bytes), why)
            XCTAssertEqual(out.plan.profileBytes, 0, why)
            XCTAssertEqual(out.bytes.count, 30_000, why)
        }
        // Just under the quarter: carried.
        let largest = Encoders.iccProfile(description: String(repeating: "x", count: 7_000))
        XCTAssertLessThanOrEqual(largest.count, 7_500)
        let out = try ThumbnailRenderer().render(Encoders.insertingICCProfile(largest, into: jpeg), format: .jpeg, orientation: 1, box: .default)
        XCTAssertEqual(try carriedProfile(out), largest)
    }

    /// A camera set to Adobe RGB writes no profile, only EXIF's ColorSpace "uncalibrated" and
    /// InteropIndex "R03" (DCF): its thumbnail carries an Adobe RGB (1998) profile. sRGB (1 and
    /// R98), half the signal, or a real profile beside it: not that one.
    func testAnAdobeRGBCameraJPEGWithoutAProfileIsTaggedSo() throws {
        let jpeg = try Encoders.jpeg(.marker(width: 600, height: 400))
        func tagged(space: UInt16?, index: String?, order: ExifWriter.ByteOrder = .intel) -> [UInt8] {
            var w = ExifWriter(order: order)
            w.ifd0[0x010F] = .ascii("Canon")
            w.exif[0x9003] = .ascii("2024:05:17 14:03:04")
            if let space { w.exif[0xA001] = .short(space) }
            if let index { w.interop[0x0001] = .ascii(index) }
            return Encoders.insertingAPP1(w.payload(), into: jpeg)
        }
        let adobe = ColorProfile.adobeRGB1998.bytes
        XCTAssertEqual(ColorProfile(adobe)?.bytes, adobe, "a valid RGB profile")
        for order in [ExifWriter.ByteOrder.intel, .motorola] {
            let out = try ThumbnailRenderer().render(tagged(space: 0xFFFF, index: "R03", order: order), format: .jpeg, orientation: 1, box: .default)
            XCTAssertEqual(try carriedProfile(out), adobe, "\(order)")
        }
        for (why, original) in [("sRGB", tagged(space: 1, index: "R98")), ("no InteropIndex", tagged(space: 0xFFFF, index: nil)),
                                ("R03 but ColorSpace sRGB", tagged(space: 1, index: "R03")), ("no EXIF", jpeg)] {
            let out = try ThumbnailRenderer().render(original, format: .jpeg, orientation: 1, box: .default)
            XCTAssertNil(try carriedProfile(out), why)
        }
        let p3 = Encoders.iccProfile(description: "Display P3 (albumfs test)")
        let both = Encoders.insertingICCProfile(p3, into: tagged(space: 0xFFFF, index: "R03"))
        XCTAssertEqual(try carriedProfile(try ThumbnailRenderer().render(both, format: .jpeg, orientation: 1, box: .default)), p3,
                       "a profile the camera wrote wins")
        // EXIF whose pointers lead nowhere says nothing (and reads nothing out of bounds).
        let exif = try XCTUnwrap(try JPEGHeaderSegments(Original(bytes: tagged(space: 0xFFFF, index: "R03"))).exif)
        XCTAssertTrue(ExifColorSpace.isAdobeRGB(exif))
        let needed = try XCTUnwrap(exif.firstRange(of: Array("R03".utf8))).upperBound
        for cut in 0..<needed { XCTAssertFalse(ExifColorSpace.isAdobeRGB(Array(exif.prefix(cut))), "cut at \(cut)") }
        for i in 6..<exif.count {
            var broken = exif
            broken[i] = 0xFF
            _ = ExifColorSpace.isAdobeRGB(broken)
        }
    }

    /// A progressive JPEG makes libjpeg hold every coefficient whatever the scale: a render that
    /// would need more than it may take is refused before decoding, with the figure; the same
    /// photo stored baseline streams, and renders under the same limit.
    func testARenderOverItsMemoryIsRefusedBeforeDecoding() throws {
        let image = SampleImage.marker(width: 3000, height: 2000)
        let progressive = try Encoders.jpeg(image, kind: .progressive)
        let small = ThumbnailRenderer(memory: DecodeMemory(limit: 8 << 20))
        XCTAssertThrowsError(try small.render(progressive, format: .jpeg, orientation: 1, box: .default)) { error in
            // 188 x 125 MCUs of 6 blocks (4:2:0), 128 bytes each: 18 MB, and the 1/4 image twice.
            XCTAssertEqual((error as? ThumbnailError)?.description,
                           "a 3000x2000 progressive JPEG needs 20 MB to decode, over the 8 MB a thumbnail may take (-o thumbnail_memory)")
        }
        XCTAssertNoThrow(try small.render(try Encoders.jpeg(image), format: .jpeg, orientation: 1, box: .default), "baseline streams")
        XCTAssertNoThrow(try ThumbnailRenderer(memory: DecodeMemory(limit: 32 << 20)).render(progressive, format: .jpeg, orientation: 1, box: .default))
        // The estimate is libjpeg's own need: told half of it, libjpeg refuses; told it (and 1 MB
        // for its tables and rows), it decodes.
        let stream = try JPEGStream(bytes: progressive)
        XCTAssertTrue(stream.progressive)
        XCTAssertEqual(stream.coefficientBytes, 188 * 125 * 6 * 128)
        XCTAssertThrowsError(try JPEGStream(bytes: progressive).decode(scale: (1, 4), memoryLimit: stream.coefficientBytes / 2)) { error in
            XCTAssertTrue("\(error)".contains("Backing store not supported"), "\(error)")
        }
        XCTAssertNoThrow(try JPEGStream(bytes: progressive).decode(scale: (1, 4), memoryLimit: stream.coefficientBytes + (1 << 20)))
        // A PNG shrunk as it is read needs the shrunk image's sums, 12 bytes a pixel: little for a
        // small box, the whole picture's worth for one it barely covers.
        let png = try Encoders.png(.marker(width: 2000, height: 1500))
        XCTAssertNoThrow(try small.render(png, format: .png, orientation: 1, box: .default))
        XCTAssertThrowsError(try small.render(png, format: .png, orientation: 1, box: ThumbnailBox(width: 1024, height: 1024)!)) { error in
            XCTAssertTrue("\(error)".hasPrefix("a 2000x1500 PNG needs 35 MB to decode"), "\(error)")
        }
    }

    /// Large decodes one at a time, counting those that came to the gate (the test's sign that a
    /// second one waits).
    final class CountingGate: LargeDecodeGate, @unchecked Sendable {
        let arrived = Atomic<Int>(0)
        private let inner = OneAtATime()
        func enter() {
            arrived.add(1, ordering: .relaxed)
            inner.enter()
        }
        func leave() { inner.leave() }
    }

    /// A large decode waiting for another holds no decode slot: a small one goes ahead.
    func testASmallDecodeIsNotHeldUpByLargeOnesWaiting() throws {
        let gate = CountingGate()
        let memory = DecodeMemory(limit: 1 << 30, oneAtATime: 1 << 20, decodesAtOnce: 2, large: gate)
        let firstIn = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchGroup()
        let order = Locked<[String]>([])
        let refused = Locked<[String]>([])
        DispatchQueue.global().async(group: done) {
            do {
                try memory.reserving(2 << 20, for: "large 1") { () throws(ThumbnailError) in
                    firstIn.signal()
                    release.wait()
                    order.withLock { $0.append("large 1") }
                }
            } catch {
                refused.withLock { $0.append("large 1: \(error)") }
                firstIn.signal()
            }
        }
        XCTAssertEqual(firstIn.wait(timeout: .now() + 10), .success, "large 1 holds its slot")
        DispatchQueue.global().async(group: done) {
            do {
                try memory.reserving(2 << 20, for: "large 2") { () throws(ThumbnailError) in order.withLock { $0.append("large 2") } }
            } catch {
                refused.withLock { $0.append("large 2: \(error)") }
            }
        }
        let deadline = Date().addingTimeInterval(5)
        while gate.arrived.load(ordering: .relaxed) < 2 && Date() < deadline { usleep(1_000) }
        XCTAssertEqual(gate.arrived.load(ordering: .relaxed), 2, "large 2 waits at the gate for large 1")
        let small = DispatchSemaphore(value: 0)
        DispatchQueue.global().async(group: done) {
            do {
                try memory.reserving(1 << 10, for: "small") { () throws(ThumbnailError) in order.withLock { $0.append("small") } }
            } catch {
                refused.withLock { $0.append("small: \(error)") }
            }
            small.signal()
        }
        XCTAssertEqual(small.wait(timeout: .now() + 5), .success, "the small decode ran while the first large one still held its slot")
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "every decode ended")
        XCTAssertEqual(refused.withLock { $0 }, [], "no decode was refused its memory")
        XCTAssertEqual(order.withLock { $0 }, ["small", "large 1", "large 2"])
        XCTAssertEqual(memory.peakLargeRenders, 1)
    }

    /// The default limit: a quarter of what the process may use (a cgroup's limit when lower
    /// than the machine's memory), within 256 MiB and 1 GiB.
    func testTheDefaultMemoryLimitFollowsTheMachineAndItsCgroup() throws {
        let folder = NSTemporaryDirectory() + "albumfs-cgroup-\(getpid())"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (text, value) in [("max\n", nil), ("536870912\n", 536_870_912), ("9223372036854771712\n", 9_223_372_036_854_771_712), ("", nil)] as [(String, Int?)] {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/limit", contents: Data(text.utf8)))
            XCTAssertEqual(DecodeMemory.number(in: folder + "/limit"), value, text)
        }
        XCTAssertNil(DecodeMemory.number(in: folder + "/none"))
        // The machine's memory as /proc/meminfo says it, and the cgroup's limit as the kernel's
        // file says it: read here, not through the code under test.
        let meminfo = try String(contentsOfFile: "/proc/meminfo", encoding: .utf8)
        let totalKiB = try XCTUnwrap(meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }?
            .split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) })
        let cgroup = (try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let usable = min(totalKiB * 1024, cgroup ?? .max)
        XCTAssertEqual(Double(DecodeMemory.usableMemory), Double(usable), accuracy: 64 * 1024 * 1024, "within the kernel's own reserve")
        // A quarter, between 256 MiB and 1 GiB: literal figures.
        for (usable, limit) in [(512 << 20, 256 << 20), (1 << 30, 256 << 20), (2 << 30, 512 << 20), (3 << 30, 805_306_368),
                                (4 << 30, 1 << 30), (64 << 30, 1 << 30)] {
            XCTAssertEqual(DecodeMemory.defaultLimit(usable: usable), limit, "\(usable)")
        }
    }

    /// Large decodes run one at a time, small ones side by side.
    func testLargeDecodesRunOneAtATime() throws {
        let progressive = try Encoders.jpeg(.marker(width: 1600, height: 1200), kind: .progressive)
        let memory = DecodeMemory(limit: 64 << 20, oneAtATime: 1 << 20)
        let renderer = ThumbnailRenderer(memory: memory)
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do { _ = try renderer.render(progressive, format: .jpeg, orientation: 1, box: .default) } catch { failures.withLock { $0 += 1 } }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
        XCTAssertEqual(memory.peakLargeRenders, 1)
    }

    /// A profile longer than one APP2 segment is split in numbered chunks that libjpeg joins again.
    func testALargeProfileIsSplitAcrossSegments() throws {
        let big = Encoders.iccProfile(description: String(repeating: "p", count: 150_000))
        let profile = try XCTUnwrap(ColorProfile(big))
        XCTAssertEqual(profile.segments.count, big.count + 3 * 18, "three segments")
        let jpeg = try Encoders.jpeg(.solid(width: 64, height: 64, 10, 20, 30))
        XCTAssertTrue(try carriedProfile(profile.embedded(in: jpeg)) == big, "libjpeg joins the three chunks")
        // An original tagged so (checked just above) gives a thumbnail that carries it too, in a
        // box whose thumbnail size has room for it (a quarter of 1000x1000x3/4 bytes).
        let box = try XCTUnwrap(ThumbnailBox(width: 1000, height: 1000))
        XCTAssertGreaterThan(750_000 / 4, big.count)
        let out = try ThumbnailRenderer().render(profile.embedded(in: jpeg), format: .jpeg, orientation: 1, box: box)
        XCTAssertTrue(try carriedProfile(out) == big, "the thumbnail carries the 150 KB profile")
        XCTAssertEqual(out.count, 750_000)
    }

    /// A photo's cache key: its identity, and its path in the library only where inode numbers
    /// are made up (a camera card), so a card mounted at another path keeps its thumbnails.
    func testCacheKeysOfPhotosOnCardsFollowTheirPathInTheLibrary() {
        let card = FileIdentity(inode: 0, size: 1234, mtime: Timestamp(seconds: 1_600_000_000))
        let disk = FileIdentity(inode: 77, size: 1234, mtime: Timestamp(seconds: 1_600_000_000))
        func key(_ path: String, _ id: FileIdentity, orientation: Int = 1) -> String {
            ThumbnailCache.key(path: path, identity: id, changedWhenRead: nil, orientation: orientation, box: .default)
        }
        XCTAssertNotEqual(key("DCIM/100CANON/IMG_0001.JPG", card), key("DCIM/101CANON/IMG_0001.JPG", card), "two photos of one size and time")
        XCTAssertEqual(key("a/IMG_0001.JPG", disk), key("b/IMG_0001.JPG", disk), "a real inode: the path does not count")
        XCTAssertNotEqual(key("a/IMG_0001.JPG", disk), key("a/IMG_0001.JPG", disk, orientation: 6))
        XCTAssertEqual(key("IMG_0001.JPG", card).count, 32)
        // A rewrite in place that restores size and mtime still moves the ctime: another key.
        XCTAssertNotEqual(ThumbnailCache.key(path: "a", identity: disk, changedWhenRead: Timestamp(seconds: 5), orientation: 1, box: .default),
                          ThumbnailCache.key(path: "a", identity: disk, changedWhenRead: Timestamp(seconds: 6), orientation: 1, box: .default))
    }

    /// The card itself mounted at another path: its thumbnail comes from the cache, not rendered again.
    func testAPhotoOnACardMountedElsewhereKeepsItsCachedThumbnail() throws {
        let folder = NSTemporaryDirectory() + "albumfs-card-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jpeg = Data(try Encoders.jpeg(.marker(width: 300, height: 200)))
        for mount in ["EOS_DIGITAL", "EOS_DIGITAL1"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + mount + "/DCIM", withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + mount + "/DCIM/IMG_0001.JPG", contents: jpeg))
            var times = [timespec(tv_sec: 4, tv_nsec: 0), timespec(tv_sec: 4, tv_nsec: 0)]
            XCTAssertEqual(utimensat(AT_FDCWD, folder + "/" + mount + "/DCIM/IMG_0001.JPG", &times, 0), 0)
        }
        let photo = Photo(relativePath: "DCIM/IMG_0001.JPG", format: .jpeg, identity: FileIdentity(inode: 0, size: Int64(jpeg.count), mtime: Timestamp(seconds: 4)),
                          capture: CaptureDecision(time: CaptureTime(local: LocalDateTime(year: 2020, month: 1, day: 1)), source: .fileName),
                          captureInstant: Timestamp(seconds: 0), screenshot: ScreenshotDecision(isScreenshot: false, reason: ""),
                          orientation: 1, problems: [])
        let cache = try XCTUnwrap(ThumbnailCache(directory: folder + "/cache", maxBytes: 1 << 30))
        let first = ThumbnailService(boxes: [.default], cache: cache, log: { XCTFail($0) })
        let made = try first.thumbnail(of: photo, sourceRoot: folder + "/EOS_DIGITAL", box: .default).get()
        XCTAssertEqual(first.renderCount, 1)
        let later = ThumbnailService(boxes: [.default], cache: cache, log: { XCTFail($0) })
        XCTAssertEqual(try later.thumbnail(of: photo, sourceRoot: folder + "/EOS_DIGITAL1", box: .default).get(), made)
        XCTAssertEqual(later.renderCount, 0, "served from the cache")
    }

    func testBoxParsing() {
        XCTAssertEqual(ThumbnailBox("200x200"), ThumbnailBox.default)
        XCTAssertEqual(ThumbnailBox("400x300")?.height, 300)
        for bad in ["200", "x200", "200x", "0x0", "15x200", "200x3000", "ax b", "+200x200", "200x200x1"] { XCTAssertNil(ThumbnailBox(bad), bad) }
    }

    /// A huge PNG is shrunk while it is decoded, row by row (pass by pass when interlaced): for
    /// every kind libpng's row API gives as the simplified API does, each pixel is the average of
    /// its block of the whole decode (alpha composited onto white first), whatever its depth and
    /// gamma (16-bit tagged linear included).
    func testPNGShrunkWhileDecodedMatchesTheWholeDecodeAveraged() throws {
        let image = SampleImage.marker(width: 203, height: 101)  // not a multiple of the factor
        // (gAMA 1.0 on 8-bit values: a file saved as linear light, brightened to sRGB.)
        let linear8 = Encoders.insertingChunk("gAMA", [0, 1, 0x86, 0xA0], into: try Encoders.png(image))
        for kind: Encoders.PNGKind? in [.rgb, .grayscale, .palette, .rgba(alpha: 128), .rgba(alpha: 0), .rgb16Untagged, .rgb16,
                                        .interlaced(sixteenBit: false), nil] {
            let png = try kind.map { try Encoders.png(image, kind: $0) } ?? linear8
            let kind = kind.map { "\($0)" } ?? "8-bit gAMA 1.0"
            let whole = try PNGDecoder.decode(png, maxPixels: 1 << 30)
            let shrunk = try XCTUnwrap(try PNGDecoder.decodeShrinking(png, maxPixels: 1 << 30, minWidth: 40, minHeight: 20), "\(kind)")
            XCTAssertEqual(shrunk.factor, 5, "\(kind)")
            XCTAssertEqual(shrunk.image.width, 41, "\(kind)")
            XCTAssertEqual(shrunk.image.height, 21, "\(kind)")
            var worst = 0
            for oy in 0..<shrunk.image.height {
                for ox in 0..<shrunk.image.width {
                    for c in 0..<3 {
                        var sum = 0, n = 0
                        for y in oy * 5..<min(whole.height, oy * 5 + 5) {
                            for x in ox * 5..<min(whole.width, ox * 5 + 5) { sum += Int(whole.pixels[(y * whole.width + x) * 3 + c]); n += 1 }
                        }
                        let expected = (sum + n / 2) / n
                        worst = max(worst, abs(Int(shrunk.image.pixels[(oy * shrunk.image.width + ox) * 3 + c]) - expected))
                    }
                }
            }
            XCTAssertLessThanOrEqual(worst, 1, "\(kind)")
            // A part of it (a crop's, the last column of blocks included): those blocks, no others.
            for rect in [PixelRect(x: 30, y: 4, width: 11, height: 9), PixelRect(x: 0, y: 0, width: 1, height: 21)] {
                let part = try XCTUnwrap(try PNGDecoder.decodeShrinking(png, maxPixels: 1 << 30, minWidth: 40, minHeight: 20) { w, h in
                    XCTAssertTrue((w, h) == (41, 21))
                    return rect
                })
                XCTAssertTrue((part.decoded.x, part.decoded.y, part.image.width, part.image.height) == (rect.x, rect.y, rect.width, rect.height))
                var differing = 0
                for y in 0..<rect.height {
                    for x in 0..<rect.width * 3 where part.image.pixels[y * rect.width * 3 + x]
                        != shrunk.image.pixels[((rect.y + y) * 41 + rect.x) * 3 + x] { differing += 1 }
                }
                XCTAssertEqual(differing, 0, "\(kind) \(rect)")
            }
        }
        // An interlaced 16-bit PNG: libpng's simplified API (Debian's 1.6.39-2+deb12u6) scrambles
        // its pixels (libpng issue #853), so the source image itself is the reference here.
        let interlaced16 = try XCTUnwrap(try PNGDecoder.decodeShrinking(try Encoders.png(image, kind: .interlaced(sixteenBit: true)),
                                                                        maxPixels: 1 << 30, minWidth: 400, minHeight: 400))
        XCTAssertEqual(interlaced16.factor, 1)
        XCTAssertEqual(interlaced16.image.pixels, image.pixels, "every pixel where Adam7 put it")
        XCTAssertEqual(PNGDecoder.size(try Encoders.png(image))?.width, 203)
        // Damage and limits fail as the whole decode does; a box larger than the image: factor 1.
        let png = try Encoders.png(image)
        XCTAssertThrowsError(try PNGDecoder.decodeShrinking(Array(png.prefix(png.count - 40)), maxPixels: 1 << 30, minWidth: 40, minHeight: 20))
        XCTAssertThrowsError(try PNGDecoder.decodeShrinking(Array(png.prefix(30)), maxPixels: 1 << 30, minWidth: 40, minHeight: 20))
        XCTAssertThrowsError(try PNGDecoder.decodeShrinking(png, maxPixels: 1000, minWidth: 40, minHeight: 20))
        XCTAssertEqual(try PNGDecoder.decodeShrinking(png, maxPixels: 1 << 30, minWidth: 400, minHeight: 400)?.factor, 1)
        // A header claiming 4294967295 x 4294967295 (the product overflows 64 bits): refused, no trap.
        var huge = png
        for i in 16..<24 { huge[i] = 0xFF }
        XCTAssertThrowsError(try ThumbnailRenderer().render(huge, format: .png, orientation: 1, box: .default))
    }

    /// A JPEG (and a PNG shrunk while decoded) is decoded from its open file as it is read: the
    /// same thumbnail as from memory; a
    /// file cut short fails as before; an unreadable one is the original's failure (tried again
    /// later), not its content's; a few stray bytes in the header are passed over, as browsers do
    /// (TurboJPEG's header call refused them: "extraneous bytes before marker").
    /// A HEIC rendered from its file reads only its container and the bytes of the image
    /// decoded: its embedded thumbnail's when that will do (a few kilobytes of a large file),
    /// the whole file otherwise; the thumbnails are those of a render from memory. Damaged
    /// files read this way are errors, never traps.
    func testAHEICFromItsFileReadsOnlyTheImageItDecodes() throws {
        let folder = NSTemporaryDirectory() + "albumfs-heif-file-\(getpid())"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func render(_ bytes: [UInt8], box: ThumbnailBox = .default) throws(ThumbnailError) -> (bytes: [UInt8], plan: ThumbnailRenderer.Plan) {
            let path = folder + "/photo.heic"
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let original = try Self.openOriginal(path)
            defer { close(original.fd) }
            return try ThumbnailRenderer().renderWithPlan(file: original.fd, size: original.size, format: .heif, orientation: 1, box: box)
        }
        let heic = try Encoders.heif(.marker(width: 800, height: 600), quality: 90, thumbnail: 400)
        let fromThumbnail = try render(heic)
        XCTAssertTrue(fromThumbnail.plan.preview.map { $0 == (400, 300) } ?? false, "\(fromThumbnail.plan)")
        let read = try XCTUnwrap(fromThumbnail.plan.bytesRead)
        // (The 400x300 thumbnail is a quarter of the picture, a third of the bytes; an iPhone's
        // 320x240 one is 1% of its 4032x3024 photo.)
        XCTAssertLessThan(read, heic.count / 2, "\(fromThumbnail.plan) of \(heic.count)")
        XCTAssertEqual(fromThumbnail.bytes, try ThumbnailRenderer().render(heic, format: .heif, orientation: 1, box: .default))
        let large = try XCTUnwrap(ThumbnailBox("400x400"))
        let whole = try render(heic, box: large)
        XCTAssertNil(whole.plan.preview)
        // A thumbnail with an alpha channel (an image of its own beside it): the whole file, and
        // the same thumbnail as from memory.
        let sticker = try Encoders.heif(.marker(width: 800, height: 600), quality: 90, thumbnail: 400, alpha: 200)
        let withAlpha = try render(sticker)
        XCTAssertNotNil(withAlpha.plan.preview, "\(withAlpha.plan)")
        XCTAssertGreaterThanOrEqual(withAlpha.plan.bytesRead ?? 0, sticker.count, "\(withAlpha.plan)")
        XCTAssertEqual(withAlpha.bytes, try ThumbnailRenderer().render(sticker, format: .heif, orientation: 1, box: .default))
        // (Every byte once, but for the headers of the boxes after `meta`, read at open: 8–16 each.)
        XCTAssertTrue((heic.count...(heic.count + 64)).contains(whole.plan.bytesRead ?? 0), "\(whole.plan) of \(heic.count)")
        XCTAssertEqual(whole.bytes, try ThumbnailRenderer().render(heic, format: .heif, orientation: 1, box: large))
        // Damage in the boxes: a thumbnail of the exact size or a one-line error, from the file
        // (only the bytes of the image decoded are read: what damage makes libheif look at
        // elsewhere reads as zeros) as from memory.
        var random = SeededGenerator.forTest(0x4E1D)
        for _ in 0..<60 {
            var bytes = heic
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                bytes[Int.random(in: 0..<min(bytes.count, 1500), using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            let fromFile = Result { () throws(ThumbnailError) in try render(bytes).bytes }
            let fromMemory = Result { try ThumbnailRenderer().render(bytes, format: .heif, orientation: 1, box: .default) }
            for result in [fromFile.mapError { $0 as Error }, fromMemory] {
                switch result {
                case .success(let out): XCTAssertEqual(out.count, 30_000, "\(random)")
                case .failure(let error): XCTAssertFalse("\(error)".contains("\n"), "one line: \(error), \(random)")
                }
            }
        }
    }

    func testAnOriginalIsDecodedFromItsFile() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-file-\(getpid())"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func render(_ bytes: [UInt8]) throws(ThumbnailError) -> [UInt8] {
            let path = folder + "/photo.jpg"
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let original = try Self.openOriginal(path)
            defer { close(original.fd) }
            return try ThumbnailRenderer().renderWithPlan(file: original.fd, size: original.size, format: .jpeg,
                                                          orientation: 6, box: .default).bytes
        }
        let jpeg = try Encoders.jpeg(.marker(width: 1200, height: 800), kind: .progressive)
        XCTAssertEqual(try render(jpeg), try ThumbnailRenderer().render(jpeg, format: .jpeg, orientation: 6, box: .default))
        let half = Array(jpeg.prefix(jpeg.count / 2))
        XCTAssertEqual(try render(half), try ThumbnailRenderer().render(half, format: .jpeg, orientation: 6, box: .default),
                       "a file cut short renders what it holds, from its file as from memory")
        let dhtAt = try XCTUnwrap((2..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC4 })
        let stray = Array(jpeg[..<dhtAt]) + [UInt8](repeating: 0x00, count: 10) + Array(jpeg[dhtAt...])
        XCTAssertNoThrow(try render(stray))
        let directory = open(folder, O_RDONLY | O_DIRECTORY)
        defer { close(directory) }
        XCTAssertThrowsError(try JPEGStream(file: directory, range: 0..<4096)) { error in
            XCTAssertEqual((error as? ThumbnailError)?.isReadFailure, true, "\(error)")
        }
        // A PNG shrunk as it is decoded is read from its file the same way.
        var rowPath = ThumbnailRenderer()
        rowPath.shrinkPNGAbovePixels = 0
        let png = try Encoders.png(.marker(width: 1200, height: 800), kind: .rgba(alpha: 200))
        let path = folder + "/shot.png"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(png)))
        let original = try ThumbnailService.openOriginal(Self.photoOnDisk(path.folderBeforeLastSlash, String(path.nameAfterLastSlash)),
                                                         sourceRoot: path.folderBeforeLastSlash)
        defer { close(original.fd) }
        let fromFile = try rowPath.renderWithPlan(file: original.fd, size: original.size, format: .png, orientation: 1, box: .default)
        XCTAssertEqual(fromFile.plan.dctScale.1, 2, "800 high leaves 400: \(fromFile.plan)")
        XCTAssertEqual(fromFile.bytes, try rowPath.render(png, format: .png, orientation: 1, box: .default))
        XCTAssertThrowsError(try PNGDecoder.decodeShrinking(Original(fd: directory, size: 4096), maxPixels: 1 << 30, minWidth: 40, minHeight: 40)) { error in
            XCTAssertEqual((error as? ThumbnailError)?.isReadFailure, true, "\(error)")
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(png.prefix(png.count / 2))))
        let cut = try Self.openOriginal(path)
        defer { close(cut.fd) }
        XCTAssertThrowsError(try rowPath.renderWithPlan(file: cut.fd, size: cut.size, format: .png, orientation: 1, box: .default)) { error in
            XCTAssertEqual((error as? ThumbnailError)?.isReadFailure, false, "\(error)")
        }
    }

    /// A baseline JPEG with restart markers (as Samsung's phones and many cameras write them) is
    /// decoded in bands side by side, cut where an interval starts an MCU row: the same pixels,
    /// to the byte, as one decoder gives (from memory, never cut), whole or cropped, for markers
    /// every row, every 3 rows, every 70 MCUs (a row start every 7 rows) and every 97 (one row
    /// start in the image). Files that cannot be cut: none (no DRI), progressive, markers missing.
    func testAJPEGWithRestartMarkersIsDecodedInBandsToTheSamePixels() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-rst-\(getpid())"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = SampleImage.marker(width: 2400, height: 1800)
        func opened(_ bytes: [UInt8], _ name: String) throws -> OpenedSource {
            let path = folder + "/" + name
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            return try Self.openOriginal(path)
        }
        for (interval, starts) in [(Encoders.RestartInterval.rows(1), 113), (.rows(3), 38), (.mcus(70), 17), (.mcus(97), 2)] {
            let jpeg = try Encoders.jpegWithRestarts(image, every: interval)
            let file = try opened(jpeg, "rst.jpg")
            defer { close(file.fd) }
            let plan = try XCTUnwrap(RestartBands(try JPEGStream(file: file.fd, range: 0..<file.size)), "\(interval)")
            XCTAssertEqual(plan.starts.count, starts, "\(interval)")
            XCTAssertEqual(plan.mcuRows, 113)
            XCTAssertEqual(plan.bands(covering: 0..<113, count: 2).count, 2, "\(interval)")
            for (scale, part) in [((1, 8), nil), ((1, 4), PixelRect(x: 75, y: 0, width: 450, height: 450)),
                                  ((1, 2), PixelRect(x: 0, y: 150, width: 1200, height: 600)), ((1, 1), nil)] {
                let crop = part.map { p in { (_: Int, _: Int) in p } }
                let banded = try JPEGStream(file: file.fd, range: 0..<file.size).decode(scale: scale, part: crop)
                let whole = try JPEGStream(bytes: jpeg).decode(scale: scale, part: crop)
                XCTAssertTrue(banded.image.pixels == whole.image.pixels, "\(interval) at \(scale), \(String(describing: part))")
                XCTAssertEqual([banded.x, banded.y, banded.image.width, banded.image.height], [whole.x, whole.y, whole.image.width, whole.image.height])
            }
            let thumbnail = try ThumbnailRenderer().renderWithPlan(file: file.fd, size: file.size, format: .jpeg, orientation: 6, box: .default)
            XCTAssertEqual(thumbnail.bytes, try ThumbnailRenderer().render(jpeg, format: .jpeg, orientation: 6, box: .default))
        }
        let rst = try Encoders.jpegWithRestarts(image, every: .rows(1))
        let rstAt = try XCTUnwrap((rst.count / 2..<rst.count - 1).first { rst[$0] == 0xFF && (0xD0...0xD7).contains(rst[$0 + 1]) })
        for (bytes, what) in [(try Encoders.jpeg(image), "no restart markers"), (try Encoders.jpeg(image, kind: .progressive), "progressive"),
                              (Array(rst[..<rstAt] + rst[(rstAt + 2)...]), "a restart marker missing"),
                              (Array(rst[..<rstAt] + [0xFF, 0xD5] + rst[rstAt...]), "a restart marker more than the header says"),
                              (Array(rst.prefix(rst.count / 2)), "cut in half")] {
            let file = try opened(bytes, "plain.jpg")
            defer { close(file.fd) }
            XCTAssertNil(RestartBands(try JPEGStream(file: file.fd, range: 0..<file.size)), what)
            XCTAssertEqual(try ThumbnailRenderer().renderWithPlan(file: file.fd, size: file.size, format: .jpeg, orientation: 1, box: .default).bytes,
                           try ThumbnailRenderer().render(bytes, format: .jpeg, orientation: 1, box: .default), what)
        }
    }

    /// A JPEG with restart markers damaged anywhere (its header, its data, its markers) renders
    /// or fails with an error, from its file (where it may be cut into bands) as from memory
    /// (where it never is); never a trap, never a thumbnail of another size.
    func testADamagedJPEGWithRestartMarkersRendersOrFails() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-rstbad-\(getpid())"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jpeg = try Encoders.jpegWithRestarts(.marker(width: 2400, height: 1800), every: .rows(2))
        var random = SeededGenerator(seed: 31)
        var rendered = 0
        for round in 0..<24 {
            var bytes = jpeg
            // Header bytes in some rounds, data bytes (markers included) in all.
            let spots = (0..<(1 + round % 4)).map { _ in round % 3 == 0 ? Int.random(in: 2..<700, using: &random) : Int.random(in: 700..<bytes.count, using: &random) }
            for at in spots { bytes[at] = round % 2 == 0 ? UInt8.random(in: 0...255, using: &random) : 0xFF }
            let path = folder + "/bad.jpg"
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let file = try Self.openOriginal(path)
            defer { close(file.fd) }
            for result in [Result { try ThumbnailRenderer().renderWithPlan(file: file.fd, size: file.size, format: .jpeg, orientation: 1, box: .default).bytes },
                           Result { try ThumbnailRenderer().render(bytes, format: .jpeg, orientation: 1, box: .default) }] {
                switch result {
                case .success(let thumbnail):
                    XCTAssertEqual(thumbnail.count, 30_000, "round \(round)")
                    rendered += 1
                case .failure(let error):
                    XCTAssertTrue(error is ThumbnailError, "round \(round): \(error)")
                }
            }
        }
        XCTAssertGreaterThan(rendered, 10, "most damage still renders")
    }

    /// A JPEG that lacks only its closing EOI marker (some phones write them so, an interrupted
    /// copy loses it) has every row: its thumbnail is the whole file's, from memory and from its
    /// file. Cut inside its image data, or a progressive one between two scans, it renders what it
    /// holds (libjpeg fills the missing rows), as GdkPixbuf, ImageMagick and pcmanfm show it: the
    /// marker's red corner, decoded first, is there. An embedded preview cut short is passed over
    /// for the photo itself.
    func testAJPEGCutShortRendersWhatItHolds() throws {
        let folder = NSTemporaryDirectory() + "albumfs-thumb-eoi-\(getpid())"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func render(_ bytes: [UInt8]) throws -> [UInt8] {
            let fromMemory = try ThumbnailRenderer().render(bytes, format: .jpeg, orientation: 1, box: .default)
            let path = folder + "/photo.jpg"
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let original = try Self.openOriginal(path)
            defer { close(original.fd) }
            let fromFile = try ThumbnailRenderer().renderWithPlan(file: original.fd, size: original.size, format: .jpeg,
                                                                  orientation: 1, box: .default).bytes
            XCTAssertEqual(fromFile, fromMemory)
            return fromMemory
        }
        func assertRendersItsStart(_ bytes: [UInt8], _ what: String) throws {
            let image = try JPEGStream(bytes: try render(bytes)).decode(scale: (1, 1)).image
            var r = 0, g = 0
            for y in 3..<20 { for x in 3..<20 { r += Int(image.pixels[(y * image.width + x) * 3]); g += Int(image.pixels[(y * image.width + x) * 3 + 1]) } }
            let red = (r / 289, g / 289)
            XCTAssertGreaterThan(red.0, 170, "\(what): the top-left corner decoded \(red)")
            XCTAssertLessThan(red.1, 90, "\(what): the top-left corner decoded \(red)")
        }
        for kind in [Encoders.JPEGKind.baseline, .progressive] {
            let jpeg = try Encoders.jpeg(.marker(width: 1200, height: 800), kind: kind)
            XCTAssertEqual(Array(jpeg.suffix(2)), [0xFF, 0xD9])
            XCTAssertEqual(try render(Array(jpeg.dropLast(2))), try render(jpeg), "\(kind) without EOI")
            try assertRendersItsStart(Array(jpeg.dropLast(40)), "\(kind) cut 40 bytes short")
            try assertRendersItsStart(Array(jpeg.prefix(jpeg.count / 2)), "\(kind) cut in half")
        }
        let progressive = try Encoders.jpeg(.marker(width: 1200, height: 800), kind: .progressive)
        let scans = (2..<progressive.count - 1).filter { progressive[$0] == 0xFF && progressive[$0 + 1] == 0xDA }
        XCTAssertGreaterThan(scans.count, 5)
        for (n, at) in scans.enumerated().dropFirst(2) { try assertRendersItsStart(Array(progressive[..<at]), "cut before scan \(n + 1)") }
        // Cut inside its header (no image data yet) there is nothing to render.
        XCTAssertThrowsError(try ThumbnailRenderer().render(Array(progressive[..<scans[0]]), format: .jpeg, orientation: 1, box: .default))
    }

    /// An interlaced 16-bit PNG gives the thumbnail its non-interlaced twin gives (the simplified
    /// API scrambled it: worst difference 110 before it took the row path).
    func testAnInterlaced16BitPNGRendersAsItsNonInterlacedTwin() throws {
        let image = SampleImage.marker(width: 300, height: 200)
        let renderer = ThumbnailRenderer()
        let interlaced = try renderer.renderWithPlan(try Encoders.png(image, kind: .interlaced(sixteenBit: true)), format: .png,
                                                    orientation: 1, box: .default)
        let plain = try renderer.render(try Encoders.png(image, kind: .rgb16Untagged), format: .png, orientation: 1, box: .default)
        let a = try jpegPixels(interlaced.bytes), b = try jpegPixels(plain)
        var worst = 0
        for i in a.pixels.indices { worst = max(worst, abs(Int(a.pixels[i]) - Int(b.pixels[i]))) }
        XCTAssertLessThanOrEqual(worst, 12, "\(interlaced.plan)")
    }

    private func jpegPixels(_ jpeg: [UInt8]) throws -> RGBImage {
        try JPEGStream(bytes: jpeg).decode(scale: (1, 1)).image
    }

    /// A PNG takes the row-by-row path for a thumbnail (only its crop's rows and blocks) and
    /// gives the thumbnail its whole decode gives, for every orientation's box.
    func testAPNGTakesTheRowPathToTheSameThumbnail() throws {
        let png = try Encoders.png(.marker(width: 1600, height: 1000), kind: .rgba(alpha: 200))
        for orientation in [1, 6] {
            let (viaRows, plan) = try ThumbnailRenderer().renderWithPlan(png, format: .png, orientation: orientation, box: .default)
            XCTAssertEqual(plan.dctScale.1, 2, "1600x1000 shrunk by 2 leaves 800x500, at least twice the 200 box each way: \(plan)")
            XCTAssertTrue(plan.decodedSize == (500, 500), "the crop's blocks only: \(plan)")
            let whole = try PNGDecoder.decode(png, maxPixels: 1 << 30)
            let stored = Orientation.storedSize(width: 200, height: 200, orientation: orientation)
            let reference = Orientation.apply(orientation, to: Resampler.coverAndCrop(whole, width: stored.0, height: stored.1))
            let a = try jpegPixels(viaRows)
            let b = try jpegPixels(FixedSizeJPEG.encode(reference, size: FixedSizeJPEG.size(for: 200, 200), encoder: JPEGEncoder()))
            var worst = 0
            for i in a.pixels.indices { worst = max(worst, abs(Int(a.pixels[i]) - Int(b.pixels[i]))) }
            XCTAssertLessThanOrEqual(worst, 12, "orientation \(orientation)")
        }
    }
}

/// Log lines a service wrote, from any thread.
private final class LoggedLines: @unchecked Sendable {
    private var lines: [String] = []
    private let lock = NSLock()

    func append(_ line: String) { lock.withLock { lines.append(line) } }

    func count(where matches: (String) -> Bool) -> Int { lock.withLock { lines.filter(matches).count } }
}
