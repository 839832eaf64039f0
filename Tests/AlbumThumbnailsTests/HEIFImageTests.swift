import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class HEIFImageTests: XCTestCase {
    /// A HEIC comes out upright through its own rotation and mirror boxes (`irot`, `imir`), in
    /// all eight orientations, and is never turned a second time by the EXIF Orientation an
    /// iPhone writes beside them (the renderer is given it, as a photo's is); its colour profile
    /// is carried.
    func testAHEICIsTurnedByItsOwnBoxesOnly() throws {
        let renderer = ThumbnailRenderer()
        let p3 = SampleICC.iccProfile(description: "Display P3 (albumfs test)")
        for o in 1...8 {
            let stored = SampleImage.marker(width: 320, height: 240).stored(forOrientation: o)
            let heic = try SampleHEIF.heif(stored, quality: 90, metadata: .init(orientation: o, iccProfile: p3))
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
            let heic = try SampleHEIF.heif(.marker(width: 1100, height: 700), metadata: .init(orientation: orientation), layout: .init(tile: 256))
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

    /// An AVIF (AV1 in HEIF, as Android 12+ and browsers save them) is a HEIF image like a HEIC:
    /// its EXIF date read, its thumbnail upright by its own boxes.
    func testAnAVIFIsAHEIFImageToo() throws {
        let avif = try SampleHEIF.heif(SampleImage.marker(width: 320, height: 240).stored(forOrientation: 8), codec: .av1, quality: 80, metadata: .init(orientation: 8))
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
        let large = try SampleHEIF.heif(stored, quality: 90, metadata: .init(orientation: 6), layout: .init(thumbnail: 400))
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
        let small = try SampleHEIF.heif(stored, quality: 90, metadata: .init(orientation: 6), layout: .init(thumbnail: 240))
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
        var heic = try SampleHEIF.heif(SampleImage.marker(width: 800, height: 600), quality: 90, layout: .init(thumbnail: 400))
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
            let heic = try SampleHEIF.heif(.solid(width: 64, height: 64, 255, 0, 0), quality: 95, layout: .init(alpha: alpha))
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
        let withAlpha = try SampleHEIF.heif(.solid(width: 64, height: 64, 255, 0, 0), quality: 95, layout: .init(alpha: 0))
        let centre = (100 * 200 + 100) * 3
        let transparent = try JPEGStream(bytes: try ThumbnailRenderer().render(withAlpha, format: .heif, orientation: 1, box: .default)).decode(scale: (1, 1)).image
        XCTAssertEqual(Double(transparent.pixels[centre + 1]), 255, accuracy: 12, "as an alpha channel (0) it is white: the patch is what changes it")
        for urn in ["urn:mpeg:hevc:2015:auxid:2", SampleHEIF.appleGainMapURN] {
            let heic = try SampleHEIF.replacingAuxiliaryType("urn:mpeg:hevc:2015:auxid:1", with: urn, in: withAlpha)
            let info = try heifInfo(heic)
            // (heif-info names alpha and depth images; any other auxiliary image it reads without a word.)
            XCTAssertTrue(info.contains(urn == SampleHEIF.appleGainMapURN ? "depth channel: no" : "depth channel: yes"), "\(urn): \(info)")
            XCTAssertTrue(info.contains("alpha channel: no"), "\(urn): \(info)")
            let image = try JPEGStream(bytes: try ThumbnailRenderer().render(heic, format: .heif, orientation: 1, box: .default)).decode(scale: (1, 1)).image
            XCTAssertEqual(Double(image.pixels[centre]), 255, accuracy: 12, "\(urn): the primary image's red")
            XCTAssertEqual(Double(image.pixels[centre + 1]), 0, accuracy: 12, "\(urn): not composited: no alpha")
            let header = try XCTUnwrap(heic.withUnsafeBytes { MetadataReader.read(bytes: $0) })
            XCTAssertEqual(header.format, .heif)
            XCTAssertEqual(header.evidence.problems, [], urn)
        }
    }

    /// HEIF renders running at once (a file manager opening a folder of HEICs asks for many)
    /// each get the same thumbnail as one alone.
    func testHEICsRenderedAtOnceAreEachWhole() throws {
        let heic = try SampleHEIF.heif(.marker(width: 640, height: 480), quality: 80)
        let renderer = ThumbnailRenderer()
        let alone = try renderer.render(heic, format: .heif, orientation: 1, box: .default)
        let results = Locked<[Result<[UInt8], ThumbnailError>?]>(Array(repeating: nil, count: 12))
        DispatchQueue.concurrentPerform(iterations: 12) { i in
            let result = Result { () throws(ThumbnailError) in try renderer.render(heic, format: .heif, orientation: 1, box: .default) }
            results.withLock { $0[i] = result }
        }
        for (i, result) in results.withLock({ $0 }).enumerated() {
            // (A render that failed throws its error here, named in the failure.)
            XCTAssertEqual(try XCTUnwrap(result, "render \(i) ran").get(), alone, "render \(i)")
        }
    }

    /// A HEIC cut short, over the pixel limit, or damaged anywhere: an error, never a trap.
    func testDamagedHEICsAreErrors() throws {
        let heic = try SampleHEIF.heif(.marker(width: 256, height: 192))
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
        let heic = try SampleHEIF.heif(.marker(width: 800, height: 600), quality: 90, layout: .init(thumbnail: 400))
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
        let sticker = try SampleHEIF.heif(.marker(width: 800, height: 600), quality: 90, layout: .init(thumbnail: 400, alpha: 200))
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
}
