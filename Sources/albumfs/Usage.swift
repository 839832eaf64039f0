enum Usage {
    static let version = "albumfs 0.1.0"

    static let text = """
    usage: albumfs [options] SOURCE MOUNTPOINT
           albumfs sample DIR [--count N [--varied]]
           albumfs status MOUNTPOINT
           albumfs index SOURCE [-o index=PATH]
           albumfs --help | --version

    Mounts the photo library in SOURCE read-only at MOUNTPOINT as virtual folders:
      by-date/YYYY/YYYY-MM/YYYY-MM-DD/  every photo and video once, on the day written on it
      screenshots/                      screenshots (still images)
      non-screenshots/                  every other still image
      videos/                           the videos (MP4, QuickTime, 3GP), not Live or motion photos' own
      by-camera/MAKE MODEL/             every photo and video under its camera ("Canon EOS R5"),
                                        by-camera/Unknown/ for those that name none
      favorites/                        photos rated 4 or 5 (XMP or EXIF Rating), flat
      media-types/KIND/                 live-photos, portraits, panoramas, selfies, bursts/BURST,
                                        slo-mo, time-lapse, screen-recordings, cinematic, spatial,
                                        raw: by the tags the devices write, flat
      places/COUNTRY/REGION/CITY/       photos and videos with a GPS position, under the nearest
                                        city (GeoNames, within 50 km); none for those without
      duplicates/NAME/                  files with the same bytes, a folder per group named after
                                        its newest copy, every copy in it
      duplicates/similar/NAME/          photos alike (re-encoded, resized, cropped, shot again),
                                        found in the background after the scan
      filter/EXPRESSION/                found by name, not listed: filter/favorites/year=2024/,
                                        filter/any(images,not(screenshots))/ (filter/README.txt)
      thumbnails/200x200/               an exact-size JPEG of each photo and video
      picked/                           ln -s PHOTO MOUNTPOINT/picked/ picks it, rm unpicks
      .albumfs/status, .albumfs/errors  the daemon's state; the files it could not read, and why
      .albumfs/not-shown                every file under SOURCE no view shows, and why
    Every listing newest first, each file's mtime its capture time, originals byte-identical.
    Unmount with: fusermount3 -u MOUNTPOINT

    options:
      -f                 stay in the foreground (default: go to the background once mounted)
      -d                 debug: stay in the foreground and log every request
      -s                 serve requests on one thread
      -o opt[,opt...]    mount options:
         allow_other, allow_root, default_permissions, auto_unmount, ro, fsname=NAME,
         subtype=NAME, max_read=N, noatime, nodev, nosuid, noexec ...   (standard FUSE options)
         uid=N, gid=N, umask=M       the owner every node shows, and bits taken from its mode
         screenshot_names=A|B|...    file-name prefixes that mark a screenshot
         screenshot_folders=A|B|...  folder names that mark a screenshot
         thumbnail_sizes=WxH[,WxH...] thumbnails/WxH/ folders (default 200x200, at most 8)
         views=NAME[,NAME...]        the views shown, of by-date, screenshots, non-screenshots,
                                     videos, by-camera, favorites, media-types, places,
                                     duplicates, filter, thumbnails, picked (default all)
         favorite_rating=N           the lowest rating favorites/ lists, 1 to 5 (default 4)
         cache_dir=PATH              thumbnail cache (default $XDG_CACHE_HOME/albumfs/thumbnails)
         cache_size=N[K|M|G]         cache bound, least recently used evicted (default 1G)
         thumbnail_max_pixels=N      larger images get no thumbnail (EIO; default 250000000)
         thumbnail_memory=N[K|M|G]   what one thumbnail's decode may take; more: EIO
                                     (default a quarter of the memory, 256M to 1G)
         thumbnail_timeout=SECONDS   CPU time one photo's decode may take in its sandboxed
                                     worker (default 10; a video's three times it); more: EIO
         thumbnail_ahead=N           thumbnails made ahead of a reader reading a folder's
                                     in order (default one per core, at most 4; 0: none)
         picks_db=PATH               where picks persist (default $XDG_DATA_HOME/albumfs/picks.sqlite)
         max_picks=N                 at most N photos in picked/ (default: no limit)
         index=PATH                  the library's index (default $XDG_CACHE_HOME/albumfs/index/…)
         rescan=SECONDS              rescan under inotify, the safety net (default 300); it
                                     skips folders whose mtime is unchanged
         full_rescan=SECONDS         a rescan lists every folder this often (default 3600;
                                     0: every one), for files rewritten in place
         max_watches=N               watch at most N folders with inotify (default: kernel limit)
         scan_wait=SECONDS           wait this long for the first scan before going to the
                                     background (default 2; the mount answers at once anyway)
         source_timeout=SECONDS      answer EIO when the library's storage (a network share)
                                     has not answered a read for this long (default 30; 0: never)
         io_uring=on|off             read headers through io_uring (default on; off: pread,
                                     for seccomp sandboxes that forbid io_uring)
         heif=on|off                 show HEIF images (HEIC, AVIF) as photos (default on;
                                     off: JPEG, PNG and videos only)
         logfile=PATH                where a background daemon logs (default: none)
         desktop_thumbnails          write file managers' thumbnails (~/.cache/thumbnails) of a
                                     folder's photos before its listing is answered (at most
                                     1.5 s), and of the newest days after the scan (default off)
         desktop_thumbnails_size=N[K|M|G]  what those may take in all, oldest removed
                                     first (default 512M)
      -h, --help         this text
      -V, --version      the version

    albumfs index SOURCE builds or refreshes the index without mounting.
    albumfs status MOUNTPOINT prints MOUNTPOINT/.albumfs/status (photos, errors, thumbnail cache).
    albumfs sample DIR writes a small sample library (cameras, screenshots, damaged files);
    with --count N it writes N small camera JPEGs instead (for benchmarks), of one picture,
    or with --varied each of a picture and a size of its own.

    exit codes: 0 mounted, 1 mount failed, 2 bad command line, 3 bad SOURCE,
                4 bad MOUNTPOINT, 5 FUSE not available.   See man albumfs.
    """
}
