import AlbumCore
@testable import AlbumThumbnails
import XCTest

/// What crosses a render worker's socket: read back as written, and nonsense refused (a worker
/// is not trusted: what it says is checked like a file's bytes).
final class RenderMessagesTests: XCTestCase {
    func testARequestReadsBackAsWrittenAndNonsenseIsRefused() throws {
        let source = SourceImage(fd: 7, size: 123_456_789, format: .heif, orientation: 6)
        let request = RenderRequest(kind: .thumbnail, source: source, width: 200, height: 150, cpuSeconds: 10)
        XCTAssertEqual(request.bytes.count, RenderRequest.byteCount)
        XCTAssertEqual(RenderRequest(request.bytes), request)
        let hash = RenderRequest(kind: .hash, source: source, width: 64, height: 64, cpuSeconds: 10)
        XCTAssertEqual(RenderRequest(hash.bytes), hash)
        XCTAssertEqual(hash.bytes[0], 2, "a hash request's kind")
        for format in RenderRequest.formats {
            let r = RenderRequest(kind: .fitting, source: SourceImage(fd: 3, size: 1, format: format, orientation: 1), width: 256, height: 256, cpuSeconds: 30)
            XCTAssertEqual(RenderRequest(r.bytes)?.format, format)
        }
        var bad = request.bytes
        bad[0] = 9
        XCTAssertNil(RenderRequest(bad), "no such kind")
        bad = request.bytes
        bad[1] = 200
        XCTAssertNil(RenderRequest(bad), "no such format")
        XCTAssertNil(RenderRequest(Array(request.bytes.dropLast())), "cut short")
        var huge = request
        huge.width = ThumbnailBox.maxSide + 1
        XCTAssertNil(RenderRequest(huge.bytes), "a box over the largest side")
        var negative = request
        negative.size = -1
        XCTAssertNil(RenderRequest(negative.bytes))
    }

    func testAnswersReadBackAsWrittenAndNonsenseIsRefused() {
        let messages: [WorkerMessage] = [.thumbnail(bytes: [0xFF, 0xD8, 1, 2, 0xFF, 0xD9], plan: "4000x3000 decoded at 1/8"),
                                         .image(width: 2, height: 1, pixels: [1, 2, 3, 4, 5, 6]),
                                         .failure(message: "cannot read the original: EIO", isReadFailure: true, isMissing: false),
                                         .hash(0xF0E1_D2C3_B4A5_9687), .hash(0), .hash(UInt64.max),
                                         .largeDecode, .largeDecodeDone, .go]
        for message in messages {
            let frame = message.frame
            let length = Int(frame[1]) | Int(frame[2]) << 8 | Int(frame[3]) << 16 | Int(frame[4]) << 24
            XCTAssertEqual(length, frame.count - 5)
            XCTAssertEqual(WorkerMessage(type: frame[0], payload: Array(frame[5...])), message)
        }
        XCTAssertNil(WorkerMessage(type: 2, payload: WorkerMessage.image(width: 2, height: 2, pixels: [1, 2, 3]).frame.dropFirst(5).map { $0 }),
                     "pixels that do not fill the image")
        XCTAssertNil(WorkerMessage(type: 2, payload: WorkerMessage.image(width: 5000, height: 1, pixels: [UInt8](repeating: 0, count: 15000))
                        .frame.dropFirst(5).map { $0 }), "an image larger than any asked for")
        XCTAssertNil(WorkerMessage(type: 3, payload: [0, 0xFF, 0xFF, 0xFF, 0x7F]), "a message longer than its frame")
        XCTAssertNil(WorkerMessage(type: 7, payload: [1, 2, 3, 4, 5, 6, 7]), "a hash of 7 bytes")
        XCTAssertNil(WorkerMessage(type: 7, payload: [UInt8](repeating: 1, count: 9)), "a hash of 9 bytes")
        XCTAssertEqual(WorkerMessage.hash(0x0102_0304_0506_0708).frame, [7, 8, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1], "8 bytes, little-endian")
        XCTAssertNil(WorkerMessage(type: 77, payload: []))
    }

    func testWhyAWorkerGaveNoAnswerIsSaid() {
        XCTAssertEqual(RenderWorkers.words(.timedOut, how: "killed by signal 9 (SIGKILL)", seconds: 21),
                       "the decoder took over 21 s (-o thumbnail_timeout) and was stopped")
        XCTAssertEqual(RenderWorkers.words(.ended, how: "killed by signal 11 (SIGSEGV)", seconds: 21),
                       "the render worker ended during the decode (killed by signal 11 (SIGSEGV))")
        XCTAssertEqual(RenderWorkers.wallSeconds(10), 21)
        XCTAssertEqual(RenderWorkers.Limits(memory: 1 << 30, maxPixels: 1, seconds: 10).cpuSeconds(.video), 30)
        XCTAssertEqual(RenderWorkers.Limits(memory: 1 << 30, maxPixels: 1, seconds: 10).cpuSeconds(.jpeg), 10)
    }
}
