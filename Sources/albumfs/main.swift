import Glibc
import AlbumThumbnails

/// The whole program is in functions and types: FUSE callbacks must never be formed in
/// top-level code (docs/swift-fuse.md), and exit codes are decided in one place.
enum AlbumFSMain {
    static func main(_ arguments: [String]) -> Int32 {
        do throws(CLIError) {
            switch try CommandLineParser.parse(arguments) {
            case .help:
                print(Usage.text)
                return ExitCode.success.rawValue
            case .version:
                print(Usage.version)
                return ExitCode.success.rawValue
            case .sample(let folder, let count, let pictures):
                return try SampleCommand.run(folder: folder, count: count, pictures: pictures)
            case .index(let options):
                return try IndexCommand.run(options)
            case .status(let mountpoint):
                return try StatusCommand.run(mountpoint: mountpoint)
            case .renderWorker(let memory, let maxPixels, let daemon):
                return RenderWorkerProcess.serve(memory: memory, maxPixels: maxPixels, daemon: daemon)
            case .checkSandbox:
                let (lines, refused) = RenderWorkerProcess.checkSandbox(memory: 256 << 20)
                lines.forEach { print($0) }
                return refused ? ExitCode.success.rawValue : ExitCode.failure.rawValue
            case .mount(let options):
                return try MountCommand.run(options, arguments: arguments)
            }
        } catch {
            Log.line(error.message)
            return error.code.rawValue
        }
    }
}

exit(AlbumFSMain.main(Array(CommandLine.arguments.dropFirst())))
