@testable import albumfs
import XCTest

/// `-o source_timeout` as the command line gives it to the mount: 30 s unless told, 0 for none
/// (`SourceDeadlines` then keeps no deadline), and words that are no number of seconds refused.
final class MountOptionsTests: XCTestCase {
    /// The options `albumfs SOURCE MOUNTPOINT` followed by `words` parses to.
    func mountOptions(_ words: [String]) throws -> MountOptions {
        switch try CommandLineParser.parse(["/library", "/mnt"] + words) {
        case .mount(let options): return options
        case let other: throw CLIError(.failure, "parsed as \(other), not a mount")
        }
    }

    func testSourceTimeoutIsThirtySecondsUnlessTold() throws {
        XCTAssertEqual(try mountOptions([]).sourceTimeout, 30)
        XCTAssertEqual(try mountOptions(["-o", "ro,index=/tmp/i.sqlite"]).sourceTimeout, 30, "other options leave it")
        XCTAssertEqual(try mountOptions(["-o", "source_timeout=2"]).sourceTimeout, 2)
        XCTAssertEqual(try mountOptions(["-o", "source_timeout=0.5"]).sourceTimeout, 0.5)
    }

    func testSourceTimeoutZeroMeansNone() throws {
        XCTAssertEqual(try mountOptions(["-o", "source_timeout=0"]).sourceTimeout, 0)
    }

    func testSourceTimeoutThatIsNoNumberOfSecondsIsAUsageError() {
        for word in ["source_timeout=-1", "source_timeout=soon", "source_timeout=", "source_timeout", "source_timeout=604801"] {
            do {
                _ = try mountOptions(["-o", word])
                XCTFail("\(word) accepted")
            } catch let error as CLIError {
                XCTAssertEqual(error.code, .usage, word)
                XCTAssertTrue(error.message.hasPrefix("albumfs: option 'source_timeout' takes a number of seconds (got '"), error.message)
            } catch {
                XCTFail("\(word): \(error)")
            }
        }
    }
}
