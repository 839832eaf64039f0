import Foundation
import XCTest

/// Decodes a JPEG with `djpeg` (libjpeg-turbo-progs), independent of albumfs's own decoder.
struct DecodedImage {
    var width: Int
    var height: Int
    /// RGB, 3 bytes a pixel.
    var pixels: [UInt8]

    init?(jpeg: [UInt8]) {
        let input = NSTemporaryDirectory() + "probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).jpg"
        defer { unlink(input) }
        guard FileManager.default.createFile(atPath: input, contents: Data(jpeg)),
              let pnm = Self.pnm(from: "/usr/bin/djpeg", ["-pnm", input]) else { return nil }
        self.init(pnm: pnm)
    }

    /// A PNG file, through ImageMagick's `convert` to PPM.
    init?(png path: String) {
        guard let pnm = Self.pnm(from: "/usr/bin/convert", [path, "-depth", "8", "ppm:-"]) else { return nil }
        self.init(pnm: pnm)
    }

    /// What a decoder writing PNM on its standard output gives (nil: it failed).
    private static func pnm(from executable: String, _ arguments: [String]) -> [UInt8]? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return p.terminationStatus == 0 ? [UInt8](data) : nil
    }

    /// Parses binary PPM (P6) or PGM (P5; gray expanded to RGB).
    init?(pnm: [UInt8]) {
        var fields: [String] = []
        var i = 0
        while fields.count < 4 && i < pnm.count {
            while i < pnm.count && (pnm[i] == 0x20 || pnm[i] == 0x0A || pnm[i] == 0x0D || pnm[i] == 0x09) { i += 1 }
            var token = ""
            while i < pnm.count && !(pnm[i] == 0x20 || pnm[i] == 0x0A || pnm[i] == 0x0D || pnm[i] == 0x09) {
                token.append(Character(Unicode.Scalar(pnm[i])))
                i += 1
            }
            fields.append(token)
        }
        i += 1
        guard fields.count == 4, let w = Int(fields[1]), let h = Int(fields[2]) else { return nil }
        let body = Array(pnm[i...])
        switch fields[0] {
        case "P6" where body.count >= w * h * 3: pixels = Array(body.prefix(w * h * 3))
        case "P5" where body.count >= w * h: pixels = body.prefix(w * h).flatMap { [$0, $0, $0] }
        default: return nil
        }
        width = w
        height = h
    }

    /// Mean colour of a rectangle.
    func mean(x: Range<Int>, y: Range<Int>) -> (Double, Double, Double) {
        var r = 0.0, g = 0.0, b = 0.0
        for yy in y { for xx in x {
            let p = (yy * width + xx) * 3
            r += Double(pixels[p]); g += Double(pixels[p + 1]); b += Double(pixels[p + 2])
        } }
        let n = Double(x.count * y.count)
        return (r / n, g / n, b / n)
    }

    var meanColour: (Double, Double, Double) { mean(x: 0..<width, y: 0..<height) }
}

/// `.albumfs/status` as a dictionary.
func daemonStatus(_ mountpoint: String) -> [String: String] {
    guard let text = try? String(contentsOfFile: mountpoint + "/.albumfs/status", encoding: .utf8) else { return [:] }
    var out: [String: String] = [:]
    for line in text.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        out[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return out
}

func assertColour(_ c: (Double, Double, Double), _ expected: (Double, Double, Double), tolerance: Double = 10,
                  _ message: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(c.0, expected.0, accuracy: tolerance, "red of \(message): \(c)", file: file, line: line)
    XCTAssertEqual(c.1, expected.1, accuracy: tolerance, "green of \(message): \(c)", file: file, line: line)
    XCTAssertEqual(c.2, expected.2, accuracy: tolerance, "blue of \(message): \(c)", file: file, line: line)
}

/// A file's bytes, or the errno of the failing open/read.
func readFile(_ path: String) -> Result<[UInt8], Errno> {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return .failure(Errno(errno)) }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n < 0 { return .failure(Errno(errno)) }
        if n == 0 { return .success(out) }
        out += buffer[0..<n]
    }
}

struct Errno: Error, Equatable {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}

/// Bytes read, or -1 and the errno (`readFile`, in the shape the errno checks use).
func readAll(_ path: String) -> (bytes: Int, errno: Int32) {
    switch readFile(path) {
    case .success(let bytes): return (bytes.count, 0)
    case .failure(let e): return (-1, e.code)
    }
}

/// The thumbnail at `path` shows the sample's 96x64 marker upright: it covers 200x200, so its
/// red quarter lands in x < 25, y < 50, and no other corner is red.
func assertMarkerUpright(_ path: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let image = try XCTUnwrap(DecodedImage(jpeg: try readFile(path).get()), file: file, line: line)
    XCTAssertEqual(image.width, 200, file: file, line: line)
    let red = image.mean(x: 3..<20, y: 5..<40)
    XCTAssertGreaterThan(red.0, 170, "\(what): top-left is red \(red)", file: file, line: line)
    XCTAssertLessThan(red.1, 90, "\(what): top-left is red \(red)", file: file, line: line)
    for corner in [image.mean(x: 180..<197, y: 5..<40), image.mean(x: 3..<20, y: 160..<195), image.mean(x: 180..<197, y: 160..<195)] {
        XCTAssertLessThan(corner.0 - corner.1, 100, "\(what): other corners are not red \(corner)", file: file, line: line)
    }
}
