import AlbumCore
import AlbumSample
import FoundationEssentials
import Glibc

/// `albumfs sample DIR [--count N [--varied]]`.
enum SampleCommand {
    static func run(folder: String, count: Int?, pictures: BulkPictures) throws(CLIError) -> Int32 {
        do {
            if let count {
                try SampleLibrary.writeBulk(to: folder, count: count, pictures: pictures)
                Log.line("albumfs: wrote \(count) sample photos to \(folder)")
            } else {
                let items = try SampleLibrary.write(to: folder)
                Log.line("albumfs: wrote a sample library of \(items.count) files to \(folder)")
            }
        } catch {
            throw CLIError(.failure, "albumfs sample: \(error)")
        }
        return ExitCode.success.rawValue
    }
}
