import AlbumSample

/// What the command line asks for.
enum Command {
    case help
    case version
    case mount(MountOptions)
    case sample(folder: String, count: Int?, pictures: BulkPictures)
    case status(mountpoint: String)
    case index(MountOptions)
    /// The daemon's sandboxed decoder (`RenderWorkerProcess`): not for users, left out of `--help`.
    case renderWorker(memory: Int, maxPixels: Int, daemon: Int32)
    /// The sandbox a worker enters, tried: what it refuses (tests, docs/security.md).
    case checkSandbox
}

/// Parses `albumfs`'s arguments. Options may come before or after the two paths, as mount(8)
/// and fstab's `mount.fuse3` pass them (`albumfs SOURCE MOUNTPOINT -o opts`).
enum CommandLineParser {
    static func parse(_ args: [String]) throws(CLIError) -> Command {
        if args.first == "sample" { return try parseSample(Array(args.dropFirst())) }
        if args.first == "render-worker" {
            if args.count == 2, args[1] == "--check-sandbox" { return .checkSandbox }
            guard args.count == 4, let memory = Int(args[1]), let maxPixels = Int(args[2]), let daemon = Int32(args[3]),
                  memory > 0, maxPixels > 0, daemon > 0 else {
                throw CLIError(.usage, "albumfs render-worker: started by the daemon only")
            }
            return .renderWorker(memory: memory, maxPixels: maxPixels, daemon: daemon)
        }
        if args.first == "index" { return try parseIndex(Array(args.dropFirst())) }
        if args.first == "status" {
            guard args.count == 2 else { throw CLIError(.usage, "albumfs status: need the mount point (usage: albumfs status MOUNTPOINT)") }
            return .status(mountpoint: args[1])
        }
        return try parseMount(args)
    }

    /// `albumfs index SOURCE [-o index=PATH]`.
    static func parseIndex(_ args: [String]) throws(CLIError) -> Command {
        var options = MountOptions()
        var positional: [String] = []
        var i = 0
        while i < args.count {
            if args[i] == "-o", i + 1 < args.count {
                try applyOptions(args[i + 1], &options)
                i += 2
                continue
            }
            if args[i].hasPrefix("-o") && args[i].count > 2 { try applyOptions(String(args[i].dropFirst(2)), &options) } else { positional.append(args[i]) }
            i += 1
        }
        guard positional.count == 1 else { throw CLIError(.usage, "albumfs index: need the library folder (usage: albumfs index SOURCE [-o index=PATH])") }
        options.source = positional[0]
        return .index(options)
    }

    /// `albumfs [options] SOURCE MOUNTPOINT`, options before or after the paths.
    static func parseMount(_ args: [String]) throws(CLIError) -> Command {
        var options = MountOptions()
        var positional: [String] = []
        var i = 0
        func value(_ flag: String) throws(CLIError) -> String {
            i += 1
            guard i < args.count else { throw CLIError(.usage, "albumfs: \(flag) needs a value") }
            return args[i]
        }
        while i < args.count {
            let a = args[i]
            switch a {
            case "-h", "--help": return .help
            case "-V", "--version": return .version
            case "-f": options.foreground = true
            case "-d", "-odebug": options.debug = true; options.foreground = true
            case "-s": options.singleThreaded = true
            case "-o": try applyOptions(try value("-o"), &options)
            case "--": positional += args[(i + 1)...]; i = args.count; continue
            default:
                if a.hasPrefix("--daemon-ready-fd=") {
                    guard let fd = Int32(a.dropFirst("--daemon-ready-fd=".count)) else {
                        throw CLIError(.usage, "albumfs: bad \(a)")
                    }
                    options.readyFD = fd
                } else if a.hasPrefix("-o") {
                    try applyOptions(String(a.dropFirst(2)), &options)
                } else if a.hasPrefix("-") && a.count > 1 {
                    throw CLIError(.usage, "albumfs: unknown flag '\(a)' (see albumfs --help)")
                } else {
                    positional.append(a)
                }
            }
            i += 1
        }
        guard positional.count == 2 else {
            throw CLIError(.usage, positional.count < 2
                ? "albumfs: need SOURCE and MOUNTPOINT (usage: albumfs [options] SOURCE MOUNTPOINT)"
                : "albumfs: too many arguments: \(positional.dropFirst(2).joined(separator: " "))")
        }
        options.source = positional[0]
        options.mountpoint = positional[1]
        return .mount(options)
    }

    static func applyOptions(_ list: String, _ options: inout MountOptions) throws(CLIError) {
        var previousKey = ""
        var viewsList = ""
        for word in list.split(separator: ",", omittingEmptySubsequences: true).map(String.init) {
            // `thumbnail_sizes=200x200,400x300`: the comma that separates -o words also separates sizes.
            if previousKey == "thumbnail_sizes", !word.contains("="), word.first?.isNumber == true {
                try OptionTable.addThumbnailBox(word, to: &options)
                continue
            }
            // `views=by-date,videos`: likewise; a word that is no option continues the list (and
            // is a usage error there when it is no view either).
            if previousKey == "views", !word.contains("="), !OptionTable.knownWords.contains(word) {
                viewsList += "," + word
                options.views = try OptionTable.views(viewsList)
                continue
            }
            try OptionTable.apply(word, to: &options)
            previousKey = word.split(separator: "=").first.map(String.init) ?? word
            if previousKey == "views" { viewsList = String(word.dropFirst("views=".count)) }
        }
    }

    static func parseSample(_ args: [String]) throws(CLIError) -> Command {
        var folder: String?
        var count: Int?
        var pictures = BulkPictures.one
        var i = 0
        while i < args.count {
            if args[i] == "--varied" {
                pictures = .varied
                i += 1
                continue
            }
            if args[i] == "--count" {
                guard i + 1 < args.count, let n = Int(args[i + 1]), n > 0, n <= 10_000_000 else {
                    throw CLIError(.usage, "albumfs sample: --count needs a number from 1 to 10000000")
                }
                count = n
                i += 2
                continue
            }
            guard folder == nil, !args[i].hasPrefix("-") else { throw CLIError(.usage, "albumfs sample: unexpected '\(args[i])'") }
            folder = args[i]
            i += 1
        }
        guard let folder else { throw CLIError(.usage, "albumfs sample: need a folder (usage: albumfs sample DIR [--count N [--varied]])") }
        guard count != nil || pictures == .one else { throw CLIError(.usage, "albumfs sample: --varied goes with --count N") }
        return .sample(folder: folder, count: count, pictures: pictures)
    }
}
