import Foundation
import XCTest

/// A test case with a fresh, empty folder of its own for each test, removed afterwards.
class FolderTestCase: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = NSTemporaryDirectory() + "albumfs-\(type(of: self))-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
        super.tearDown()
    }
}

extension Result {
    /// The error, or nil on success.
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
