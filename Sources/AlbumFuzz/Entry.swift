import Glibc

#if FUZZING
/// libFuzzer's entry (built by `scripts/fuzz` with `-sanitize=fuzzer,address -D FUZZING`): the
/// target named by `ALBUMFS_FUZZ_TARGET`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    fuzzTarget.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

let fuzzTarget: FuzzTarget = {
    guard let name = getenv("ALBUMFS_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTarget(rawValue: name) else {
        fatalError("ALBUMFS_FUZZ_TARGET must be one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return target
}()
#else
/// Without the fuzzer: `albumfs-fuzz TARGET FILE...` runs each file through the target once
/// (the regression run of inputs a fuzzer found: `Tests/FuzzInputs`); `albumfs-fuzz --targets`
/// lists the targets.
@main
enum Replay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--targets" {
            print(FuzzTarget.allCases.map(\.rawValue).joined(separator: "\n"))
            return
        }
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            complain("usage: albumfs-fuzz TARGET FILE... | --targets")
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let bytes = contents(of: path) else {
                complain("albumfs-fuzz: cannot read \(path)")
                exit(1)
            }
            target.run(bytes)
        }
        print("albumfs-fuzz: \(arguments.count - 1) inputs of \(name) parsed")
    }

    static func contents(of path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { return ferror(file) == 0 ? bytes : nil }
            bytes += buffer[0..<n]
        }
    }

    /// A line to standard error (Glibc's `stderr` global is not concurrency-safe in Swift 6).
    static func complain(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
#endif
