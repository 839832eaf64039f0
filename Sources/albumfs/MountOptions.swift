import AlbumCore
import FoundationEssentials

/// Everything `albumfs SOURCE MOUNTPOINT` was told.
struct MountOptions {
    var source = ""
    var mountpoint = ""
    var foreground = false
    var debug = false
    var singleThreaded = false
    /// Options passed on to libfuse and the kernel (`allow_other`, `fsname=…`).
    var fuseOptions: [String] = []
    /// `-o nonempty`: mount over a folder that holds files (hidden while mounted), as FUSE 2 allowed
    /// with it; refused by default, as mounting over the wrong folder hides what is in it.
    var allowNonEmptyMountpoint = false
    /// `-o max_read=N` (also among `fuseOptions`): libfuse wants it told again when the kernel
    /// connects, or it refuses the connection.
    var maxRead: UInt32?
    var screenshotNames = ScreenshotRules.defaultNamePrefixes
    var screenshotFolders = ScreenshotRules.defaultFolderNames
    /// Where a background daemon writes its log (default: nowhere, like sshfs).
    var logFile: String?
    var thumbnailBoxes: [ThumbnailBox] = [.default]
    /// `-o favorite_rating=N`: the lowest rating `favorites/` lists (1–5).
    var favoriteRating = FavoriteRules.defaultThreshold
    /// `-o views=LIST`: the top-level views shown (default: all).
    var views = ShownViews.all
    /// Default: `$XDG_CACHE_HOME/albumfs/thumbnails` (or `~/.cache/albumfs/thumbnails`).
    var cacheDir: String?
    var cacheSize: Int64 = 1 << 30
    var thumbnailMaxPixels = 250_000_000
    /// What one thumbnail's decode may take (default: a quarter of the machine's memory, 256M–1G).
    var thumbnailMemory: Int?
    /// Thumbnails made ahead of a reader reading a folder's in order (`-o thumbnail_ahead`;
    /// default: one per core, at most 4; 0: none).
    var thumbnailAhead = min(4, ProcessInfo.processInfo.activeProcessorCount)
    /// CPU seconds one photo's render may take in its worker (`-o thumbnail_timeout`; a video's,
    /// three times as long).
    var thumbnailTimeout = 10
    /// Default: `$XDG_DATA_HOME/albumfs/picks.sqlite` (or `~/.local/share/albumfs/picks.sqlite`).
    var picksDB: String?
    var maxPicks: Int?
    /// Default: `$XDG_CACHE_HOME/albumfs/index/<hash of SOURCE>.sqlite`.
    var indexPath: String?
    /// Seconds between periodic rescans (under inotify; all there is on network storage).
    var rescanInterval = 300.0
    /// Seconds between periodic rescans that list every folder (those between skip folders whose
    /// times are unchanged); 0: all of them do.
    var fullRescanInterval = 3600.0
    var maxWatches: Int?
    /// How long the launcher waits for the first scan before going to the background anyway.
    var scanWait = 2.0
    /// Seconds a request may wait on the library's storage before it is answered EIO (0: for ever).
    var sourceTimeout = 30.0
    /// Whether header reads go through io_uring when the kernel allows it (`-o io_uring=off`: file
    /// by file, for sandboxes whose seccomp filter kills a process that sets up a ring).
    var batchedReads = true
    /// Whether HEIF images (HEIC, AVIF) are shown as photos (`-o heif=off` hides them;
    /// `ScanRules.formats`).
    var heif = true
    /// Whether listed folders' photos get thumbnails where desktop file managers look
    /// (`-o desktop_thumbnails`; `DesktopThumbnails`). Off by default: see docs/cli.md.
    var desktopThumbnails = false
    /// What albumfs's desktop thumbnails may take in all (`-o desktop_thumbnails_size`).
    var desktopThumbnailsSize: Int64 = 512 << 20
    /// `-o uid=`, `-o gid=`: who every node belongs to (default: the user who mounts).
    var uid: UInt32?
    var gid: UInt32?
    /// `-o umask=`: permission bits taken from every node's mode (octal).
    var umask: UInt32 = 0
    /// Internal: the pipe on which a daemon tells its launcher that the mount answers.
    var readyFD: Int32?
}

/// The `-o` options albumfs understands, and how each is checked.
enum OptionTable {
    /// Standard FUSE/kernel options that take no value and are passed through.
    static let fuseFlags: Set<String> = [
        "allow_other", "allow_root", "default_permissions", "auto_unmount", "ro", "rw",
        "atime", "noatime", "relatime", "dev", "nodev", "suid", "nosuid", "exec", "noexec",
        "sync", "async", "dirsync",
    ]
    /// Standard FUSE options that take a value and are passed through.
    static let fuseValues: Set<String> = ["fsname", "subtype", "max_read"]
    /// Words that mount(8) and fstab hand to every helper; they mean nothing to the filesystem.
    static let mountHelperNoise: Set<String> = ["defaults", "auto", "noauto", "user", "nouser", "users", "_netdev", "nofail"]
    /// FUSE 2 options that FUSE 3 made its behaviour (big writes) and then refuses: an fstab line
    /// written for a FUSE 2 filesystem still mounts. (`nonempty` keeps its FUSE 2 meaning.)
    static let fuse2Defaults: Set<String> = ["big_writes"]

    /// The most thumbnail sizes one mount shows.
    static let maxThumbnailBoxes = ThumbnailBox.maxFolders

    static func addThumbnailBox(_ text: String, to options: inout MountOptions) throws(CLIError) {
        guard let box = ThumbnailBox(text) else {
            throw CLIError(.usage, "albumfs: thumbnail size '\(text)' is not WIDTHxHEIGHT with sides from 16 to \(ThumbnailBox.maxSide)")
        }
        if !options.thumbnailBoxes.contains(box) { options.thumbnailBoxes.append(box) }
        guard options.thumbnailBoxes.count <= maxThumbnailBoxes else {
            throw CLIError(.usage, "albumfs: at most \(maxThumbnailBoxes) thumbnail sizes")
        }
    }

    /// An `on|off` option's value.
    static func onOff(_ key: String, _ value: String?) throws(CLIError) -> Bool {
        guard let value, value == "on" || value == "off" else {
            throw CLIError(.usage, "albumfs: option '\(key)' takes on or off (got '\(value ?? "")')")
        }
        return value == "on"
    }

    /// `1073741824`, `500M`, `2G`, `64k`.
    static func parseSize(_ text: String) -> Int64? {
        guard let last = text.last else { return nil }
        let units: [Character: Int64] = ["k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30, "t": 1 << 40, "T": 1 << 40]
        if let unit = units[last] { return Int64(text.dropLast()).map { $0 * unit } }
        return Int64(text)
    }

    /// Applies one `-o` word to `options`, or says what is wrong with it.
    static func apply(_ word: String, to options: inout MountOptions) throws(CLIError) {
        let (key, value): (String, String?) = {
            guard let eq = word.firstIndex(of: "=") else { return (word, nil) }
            return (String(word[..<eq]), String(word[word.index(after: eq)...]))
        }()
        if key.isEmpty { return }
        if try applyPassedThrough(key, value, word: word, to: &options) { return }
        if try applyNumber(key, value, word: word, to: &options) { return }
        try applyOther(key, value, word: word, to: &options)
    }

    /// The words passed on to libfuse and the kernel, and those mount(8) adds that mean nothing
    /// here: whether `key` is one of them.
    static func applyPassedThrough(_ key: String, _ value: String?, word: String, to options: inout MountOptions) throws(CLIError) -> Bool {
        if mountHelperNoise.contains(key) || fuse2Defaults.contains(key) || key.hasPrefix("x-") || key == "comment" { return true }
        if fuseFlags.contains(key) {
            guard value == nil else { throw CLIError(.usage, "albumfs: option '\(key)' takes no value (got '\(word)')") }
            options.fuseOptions.append(key)
            return true
        }
        if fuseValues.contains(key) {
            guard let value, !value.isEmpty else { throw CLIError(.usage, "albumfs: option '\(key)' needs a value, as in \(key)=…") }
            if key == "max_read" {
                guard let bytes = UInt32(value), bytes > 0 else {
                    throw CLIError(.usage, "albumfs: option 'max_read' takes a positive number of bytes (got '\(value)')")
                }
                options.maxRead = bytes
            }
            options.fuseOptions.append(key + "=" + value)
            return true
        }
        if key == "nonempty" {
            guard value == nil else { throw CLIError(.usage, "albumfs: option 'nonempty' takes no value (got '\(word)')") }
            options.allowNonEmptyMountpoint = true
            return true
        }
        return false
    }

    /// The albumfs options with a number (an id, a mask, a size, seconds, a count): whether `key`
    /// is one of them.
    static func applyNumber(_ key: String, _ value: String?, word: String, to options: inout MountOptions) throws(CLIError) -> Bool {
        switch key {
        case "uid", "gid":
            guard let value, let id = UInt32(value) else {
                throw CLIError(.usage, "albumfs: option '\(key)' takes a numeric id, as in \(key)=1000 (got '\(word)')")
            }
            if key == "uid" { options.uid = id } else { options.gid = id }
        case "umask":
            guard let value, let mask = UInt32(value, radix: 8), mask <= 0o777 else {
                throw CLIError(.usage, "albumfs: option 'umask' takes octal permission bits, as in umask=022 (got '\(word)')")
            }
            options.umask = mask
        case "cache_size":
            guard let value, let bytes = parseSize(value), bytes >= 1 << 20 else {
                throw CLIError(.usage, "albumfs: option 'cache_size' takes a size of at least 1M, as in cache_size=500M (got '\(value ?? "")')")
            }
            options.cacheSize = bytes
        case "rescan", "full_rescan", "scan_wait", "source_timeout":
            guard let value, let seconds = Double(value), seconds >= (key == "rescan" ? 1 : 0), seconds <= 86_400 * 7 else {
                throw CLIError(.usage, "albumfs: option '\(key)' takes a number of seconds\(key == "rescan" ? " (at least 1)" : "") (got '\(value ?? "")')")
            }
            switch key {
            case "rescan": options.rescanInterval = seconds
            case "full_rescan": options.fullRescanInterval = seconds
            case "scan_wait": options.scanWait = seconds
            default: options.sourceTimeout = seconds
            }
        case "max_watches":
            guard let value, let n = Int(value), n >= 0 else {
                throw CLIError(.usage, "albumfs: option 'max_watches' takes a number of folders (got '\(value ?? "")')")
            }
            options.maxWatches = n
        case "max_picks":
            guard let value, let n = Int(value), n >= 0 else {
                throw CLIError(.usage, "albumfs: option 'max_picks' takes a number of picks, 0 or more (got '\(value ?? "")')")
            }
            options.maxPicks = n
        case "thumbnail_max_pixels":
            guard let value, let n = Int(value), n >= 1 else {
                throw CLIError(.usage, "albumfs: option 'thumbnail_max_pixels' takes a positive number (got '\(value ?? "")')")
            }
            options.thumbnailMaxPixels = n
        case "thumbnail_memory":
            guard let value, let bytes = parseSize(value), bytes >= 16 << 20, bytes <= Int64(Int.max) else {
                throw CLIError(.usage, "albumfs: option 'thumbnail_memory' takes a size of at least 16M, as in thumbnail_memory=512M (got '\(value ?? "")')")
            }
            options.thumbnailMemory = Int(bytes)
        case "desktop_thumbnails_size":
            guard let value, let bytes = parseSize(value), bytes >= 1 << 20 else {
                throw CLIError(.usage, "albumfs: option 'desktop_thumbnails_size' takes a size of at least 1M, as in desktop_thumbnails_size=512M (got '\(value ?? "")')")
            }
            options.desktopThumbnailsSize = bytes
        case "thumbnail_timeout":
            guard let value, let n = Int(value), (1...3600).contains(n) else {
                throw CLIError(.usage, "albumfs: option 'thumbnail_timeout' takes seconds, 1 to 3600 (got '\(value ?? "")')")
            }
            options.thumbnailTimeout = n
        case "thumbnail_ahead":
            guard let value, let n = Int(value), (0...64).contains(n) else {
                throw CLIError(.usage, "albumfs: option 'thumbnail_ahead' takes a number of thumbnails, 0 to 64 (got '\(value ?? "")')")
            }
            options.thumbnailAhead = n
        default:
            return false
        }
        return true
    }

    /// The other albumfs options (paths, lists, on or off, thumbnail sizes); any other word is an
    /// error.
    static func applyOther(_ key: String, _ value: String?, word: String, to options: inout MountOptions) throws(CLIError) {
        switch key {
        case "thumbnail_sizes":
            guard let value, !value.isEmpty else { throw CLIError(.usage, "albumfs: option 'thumbnail_sizes' needs a value, as in thumbnail_sizes=200x200,400x300") }
            options.thumbnailBoxes = []
            for size in value.split(separator: ":") { try addThumbnailBox(String(size), to: &options) }
        case "views":
            options.views = try views(value)
        case "favorite_rating":
            guard let value, let n = Int(value), (1...5).contains(n) else {
                throw CLIError(.usage, "albumfs: option 'favorite_rating' takes a rating from 1 to 5 (got '\(value ?? "")')")
            }
            options.favoriteRating = n
        case "cache_dir":
            guard let value, !value.isEmpty else { throw CLIError(.usage, "albumfs: option 'cache_dir' needs a path") }
            options.cacheDir = value
        case "index":
            guard let value, !value.isEmpty else { throw CLIError(.usage, "albumfs: option 'index' needs a path") }
            options.indexPath = value
        case "picks_db":
            guard let value, !value.isEmpty else { throw CLIError(.usage, "albumfs: option 'picks_db' needs a path") }
            options.picksDB = value
        case "screenshot_names", "screenshot_folders":
            guard let value else { throw CLIError(.usage, "albumfs: option '\(key)' needs a value, as in \(key)=Screenshot|Captura") }
            let list = value.split(separator: "|").map(String.init).filter { !$0.isEmpty }
            if key == "screenshot_names" { options.screenshotNames = list } else { options.screenshotFolders = list }
        case "io_uring":
            options.batchedReads = try onOff(key, value)
        case "heif":
            options.heif = try onOff(key, value)
        case "desktop_thumbnails":
            options.desktopThumbnails = value == nil ? true : try onOff(key, value)
        case "logfile":
            guard let value, !value.isEmpty else { throw CLIError(.usage, "albumfs: option 'logfile' needs a path, as in logfile=/tmp/albumfs.log") }
            options.logFile = value
        default:
            let hint = nearest(to: key).map { "; did you mean '\($0)'?" } ?? ""
            throw CLIError(.usage, "albumfs: unknown option '\(key)'\(hint) (see albumfs --help)")
        }
    }

    /// `-o views=LIST`: names separated by commas, each a view's (`ShownViews.names`).
    static func views(_ value: String?) throws(CLIError) -> ShownViews {
        let known = ShownViews.names.joined(separator: ",")
        guard let value, !value.isEmpty else { throw CLIError(.usage, "albumfs: option 'views' needs a list, as in views=\(known)") }
        switch ShownViews.parse(value) {
        case .success(let views): return views
        case .failure(let unknown): throw CLIError(.usage, "albumfs: option 'views': no view is called '\(unknown.name)' (views: \(known))")
        }
    }

    /// Every `-o` word albumfs knows, for suggestions.
    static let knownWords: [String] = Array(fuseFlags) + Array(fuseValues) + Array(mountHelperNoise) + Array(fuse2Defaults) + [
        "nonempty", "uid", "gid", "umask", "thumbnail_sizes", "cache_dir", "cache_size", "index", "rescan", "scan_wait",
        "source_timeout", "full_rescan", "max_watches", "picks_db", "max_picks", "thumbnail_max_pixels", "thumbnail_memory", "thumbnail_ahead", "thumbnail_timeout", "desktop_thumbnails_size", "screenshot_names",
        "screenshot_folders", "io_uring", "heif", "logfile", "desktop_thumbnails", "views", "favorite_rating",
    ]

    /// The known word closest to `word` (at most 2 edits away, or a third of its length), if any.
    static func nearest(to word: String) -> String? {
        let scored = knownWords.map { ($0, editDistance(word, $0)) }.filter { $0.1 <= max(2, word.count / 3) }
        return scored.min { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }?.0
    }

    /// Levenshtein distance between two words.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
