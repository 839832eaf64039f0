import AlbumCore
import AlbumSystem
import AlbumMetadata
import AlbumSample
@testable import AlbumThumbnails
import CTurboJPEG
import Foundation
import Synchronization
import XCTest

final class DecodeMemoryTests: XCTestCase {
    /// A progressive JPEG makes libjpeg hold every coefficient whatever the scale: a render that
    /// would need more than it may take is refused before decoding, with the figure; the same
    /// photo stored baseline streams, and renders under the same limit.
    func testARenderOverItsMemoryIsRefusedBeforeDecoding() throws {
        let image = SampleImage.marker(width: 3000, height: 2000)
        let progressive = try SampleJPEG.jpeg(image, kind: .progressive)
        let small = ThumbnailRenderer(memory: DecodeMemory(limit: 8 << 20))
        XCTAssertThrowsError(try small.render(progressive, format: .jpeg, orientation: 1, box: .default)) { error in
            // 188 x 125 MCUs of 6 blocks (4:2:0), 128 bytes each: 18 MB, and the 1/4 image twice.
            XCTAssertEqual((error as? ThumbnailError)?.description,
                           "a 3000x2000 progressive JPEG needs 20 MB to decode, over the 8 MB a thumbnail may take (-o thumbnail_memory)")
        }
        XCTAssertNoThrow(try small.render(try SampleJPEG.jpeg(image), format: .jpeg, orientation: 1, box: .default), "baseline streams")
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
        let png = try SamplePNG.png(.marker(width: 2000, height: 1500))
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
        let progressive = try SampleJPEG.jpeg(.marker(width: 1600, height: 1200), kind: .progressive)
        let memory = DecodeMemory(limit: 64 << 20, oneAtATime: 1 << 20)
        let renderer = ThumbnailRenderer(memory: memory)
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            do { _ = try renderer.render(progressive, format: .jpeg, orientation: 1, box: .default) } catch { failures.withLock { $0 += 1 } }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
        XCTAssertEqual(memory.peakLargeRenders, 1)
    }
}
