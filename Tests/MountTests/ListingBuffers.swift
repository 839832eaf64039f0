import AlbumSystem
import Foundation
import Glibc
import XCTest

/// One `getdents64` call's entries: what the kernel handed back for one buffer.
struct ListingCall {
    var names: [String] = []
    var types: [UInt8] = []
}

/// A folder read with raw `getdents64` calls (glibc's `readdir` picks its own buffer size), the
/// k-th call with a buffer of `sizes[k % sizes.count]` bytes, one `ListingCall` per call until
/// the end; before call k, an `lseek` to offset `seeks[k]` where it says one. Nil when the folder
/// cannot be opened or a call fails.
func listingCalls(_ path: String, sizes: [Int], seeks: [Int: off_t] = [:]) -> [ListingCall]? {
    // (glibc has `getdents64` since 2.30; Swift's Glibc module does not declare it.)
    typealias Getdents64 = @convention(c) (Int32, UnsafeMutableRawPointer?, Int) -> Int
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "getdents64") else { return nil }
    let getdents64 = unsafeBitCast(symbol, to: Getdents64.self)
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: sizes.max()!, alignment: 8)
    defer { buffer.deallocate() }
    var calls: [ListingCall] = []
    while true {
        if let offset = seeks[calls.count], lseek(fd, offset, SEEK_SET) != offset { return nil }
        let got = getdents64(fd, buffer, sizes[calls.count % sizes.count])
        if got < 0 { return nil }
        if got == 0 { return calls }
        var call = ListingCall(), at = 0
        while at < got {
            // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
            let record = buffer + at
            let name = String(cString: (record + 19).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." {
                call.names.append(name)
                call.types.append(record.load(fromByteOffset: 18, as: UInt8.self))
            }
            at += Int(record.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
        }
        calls.append(call)
    }
}

/// The daemon makes each `readdir` reply while the reader takes in the one before
/// (`ReaddirPrefetch`): a listing read in calls of changing sizes, or from offsets of its own
/// choosing, is the listing read in calls of one size, every name once, in order.
final class ListingAheadTests: SampleLibraryTestCase {
    var library: String { state + "/big" }

    /// The first listing of `non-screenshots/` on a mount of its own: the kernel has nothing
    /// cached, so every call is a request to the daemon.
    func firstListing(sizes: [Int], seeks: [Int: off_t] = [:]) throws -> [ListingCall] {
        let m = try Mount(source: library)
        defer { m.finish() }
        return try XCTUnwrap(listingCalls(m.path("non-screenshots"), sizes: sizes, seeks: seeks))
    }

    func testAListingReadInCallsOfChangingSizesIsWholeAndInOrder() throws {
        let made = runCommand(albumfsBinary(), ["sample", library, "--count", "3000"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let reference = try firstListing(sizes: [4096])
        let names: [String] = reference.flatMap(\.names)
        XCTAssertGreaterThan(names.count, 2_500)
        XCTAssertEqual(Set(names).count, names.count, "every name once")
        XCTAssertGreaterThan(reference.count, 25, "many requests")

        // Sizes that match the reply made ahead and sizes that do not.
        let changing = try firstListing(sizes: [4096, 4096, 8192, 4096, 4096, 4096, 12288, 2048])
        XCTAssertEqual(changing.flatMap(\.names), names)
        XCTAssertEqual(changing.flatMap(\.types), reference.flatMap(\.types))

        // From offset 100 (entry 100: `.` and `..` are 0 and 1), and back there after 5 calls:
        // the reply made ahead for call 6 is for an offset no longer asked for. (A listing that
        // does not start at 0 is never cached by the kernel, so each call is a request.)
        let sought = try firstListing(sizes: [4096], seeks: [0: 100, 5: 100])
        let from100: [String] = Array(names.dropFirst(98))
        let before: [String] = sought.prefix(5).flatMap(\.names)
        let after: [String] = sought.dropFirst(5).flatMap(\.names)
        XCTAssertGreaterThan(before.count, 200)
        XCTAssertEqual(before, Array(from100.prefix(before.count)))
        XCTAssertEqual(after, from100, "the listing again from offset 100")
    }
}
