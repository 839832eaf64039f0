/// The index's schema: the id that marks the file as ours, its evidence columns and the
/// migrations that made each version, in order (`SQLiteDatabase.migrate` runs those a file has
/// not had).
enum IndexSchema {
    /// `PRAGMA application_id`: "albf". A database without it is not ours.
    static let applicationID: Int64 = 0x616C_6266

    /// The evidence columns of schema 1; later migrations add to `evidenceColumns`.
    static let v1EvidenceColumns = [
        "dto", "subsec_o", "offset_o", "dtd", "subsec_d", "offset_d", "xmp_created", "xmp_dto", "make", "model",
        "software", "user_comment", "xmp_user_comment", "png_software",
    ]
    static let evidenceColumns = v1EvidenceColumns + ["gps_utc", "png_comment", "xmp_create", "qt_created", "content_id", "mvhd_created", "dt", "offset_t",
                                                     "sidecar", "xmp_rating", "exif_rating", "kind_tags", "gps_lat", "gps_lon"]

    static let migrations = [
        """
        CREATE TABLE files (
            path TEXT PRIMARY KEY,
            device INTEGER NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
            kind TEXT NOT NULL,          -- 'jpeg', 'png', 'heif' (from 8), 'video' (from 10), 'ignored' or 'problem'
            message TEXT,                -- why, for 'problem'
            \(v1EvidenceColumns.map { "\($0) TEXT" }.joined(separator: ", ")),
            exposure INTEGER, orientation INTEGER, width INTEGER, height INTEGER,
            problems TEXT                -- the photo's own problems, joined by newlines
        ) WITHOUT ROWID;
        """,
        // 2: the GPS fix's UTC time (gives a missing offset). Rows written before it lack it, so
        // they are dropped: the next scan reads those files again, once.
        """
        ALTER TABLE files ADD COLUMN gps_utc TEXT;
        DELETE FROM files;
        """,
        // 3: the reader finds more now (PNG metadata after the image data and in compressed
        // text, EXIF dates misplaced in IFD0, a PNG comment kept apart from XMP's UserComment):
        // photos indexed before are read again, once.
        """
        ALTER TABLE files ADD COLUMN png_comment TEXT;
        DELETE FROM files WHERE kind IN ('jpeg', 'png');
        """,
        // 4: what the index knows of the library itself (its folder's device).
        """
        CREATE TABLE library (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        """,
        // 5: a file's device number is no part of its identity (a disk in another port comes
        // back with another one); the rows stay, nothing is read again.
        """
        ALTER TABLE files DROP COLUMN device;
        """,
        // 6: the reader reads more: an Orientation written as a LONG or a BYTE (was none), an XMP
        // language alternative's default item (its items were run together) and attributes only
        // by their whole name. Photos whose rows may lack what it now finds are read again, once.
        """
        DELETE FROM files WHERE kind IN ('jpeg', 'png') AND (orientation IS NULL OR xmp_user_comment IS NOT NULL
            OR xmp_created IS NOT NULL OR xmp_dto IS NOT NULL);
        """,
        // 7: a photo's ctime when it was read (`IndexedFile.changedWhenRead`): one renamed is known
        // by it, one rewritten in place with its size and mtime kept is told by it. Rows before it
        // lack it and stay (such a photo renamed is read again; its identity alone tells a change).
        """
        ALTER TABLE files ADD COLUMN ctime_ns INTEGER;
        """,
        // 8: HEIF images (HEIC, AVIF) are photos now. Files kept as not photos that may be one
        // (by their name; or named as a photo yet neither JPEG nor PNG) are read again, once.
        """
        DELETE FROM files WHERE (kind = 'ignored' AND (path LIKE '%.heic' OR path LIKE '%.heif' OR path LIKE '%.hif'
            OR path LIKE '%.avif')) OR (kind = 'problem' AND message = 'not a JPEG or PNG');
        """,
        // 9: a photo's owner and mode (`PhotoEvidence.access`), which the mount shows. Rows
        // stay; a photo's row without them is read again, once (`IndexedFile.lacksAccess`).
        """
        ALTER TABLE files ADD COLUMN uid INTEGER;
        ALTER TABLE files ADD COLUMN gid INTEGER;
        ALTER TABLE files ADD COLUMN mode INTEGER;
        """,
        // 10: videos (MP4, QuickTime, 3GP) are shown, with their own evidence (`mvhd_created` as
        // decimal text: the evidence columns are bound as text). Files kept as not photos that
        // may be videos (by their name), and Apple's stills (their Live Photo identifier, in the
        // maker note) are read again, once.
        """
        ALTER TABLE files ADD COLUMN xmp_create TEXT;
        ALTER TABLE files ADD COLUMN qt_created TEXT;
        ALTER TABLE files ADD COLUMN content_id TEXT;
        ALTER TABLE files ADD COLUMN mvhd_created TEXT;
        DELETE FROM files WHERE kind IN ('ignored', 'problem') AND (path LIKE '%.mov' OR path LIKE '%.mp4'
            OR path LIKE '%.m4v' OR path LIKE '%.3gp' OR path LIKE '%.3g2') OR (kind IN ('jpeg', 'heif') AND make LIKE 'Apple%');
        """,
        // 11: IFD0 DateTime and its OffsetTime, a still's XMP xmp:CreateDate, EXIF read to the
        // cap, JPEG segment lengths a little off. Rows stay; stills without DateTimeOriginal, and
        // those with problems, forget their owner and mode so that a mount reads them again,
        // once (`IndexedFile.lacksAccess`), as schema 9's rows are.
        """
        ALTER TABLE files ADD COLUMN dt TEXT;
        ALTER TABLE files ADD COLUMN offset_t TEXT;
        UPDATE files SET uid = NULL, gid = NULL, mode = NULL
            WHERE kind IN ('jpeg', 'png', 'heif') AND (dto IS NULL OR problems IS NOT NULL);
        """,
        // 12: WebP images are photos now (kind 'webp'). Files kept as not photos or as problems
        // that may be one (by their name) are read again, once.
        """
        DELETE FROM files WHERE kind IN ('ignored', 'problem') AND path LIKE '%.webp';
        """,
        // 13: GIF images are photos now (kind 'gif'), read again as schema 12's WebP.
        """
        DELETE FROM files WHERE kind IN ('ignored', 'problem') AND path LIKE '%.gif';
        """,
        // 14: TIFF images are photos now (kind 'tiff'), read again as schema 12's WebP.
        """
        DELETE FROM files WHERE kind IN ('ignored', 'problem') AND (path LIKE '%.tif' OR path LIKE '%.tiff');
        """,
        // 15: thumbnails that failed from their photo's content, with the photo's identity then
        // (`RecordedThumbnailFailure`) and the render settings they failed under: a remount with
        // the same settings lists no thumbnail of them. No generation is counted for them: the
        // views snapshot does not show them.
        """
        CREATE TABLE thumbnail_failures (
            path TEXT PRIMARY KEY,
            inode INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER,
            reason TEXT NOT NULL,
            settings TEXT NOT NULL       -- the limits and pipeline version of the render that failed
        ) WITHOUT ROWID;
        """,
        // 16: the scan tells a HEIF without its image data and a video whose samples lie past
        // its end (`Unrenderable`). Videos, and HEIF images with problems, forget their owner
        // and mode so that a mount reads them again, once (`IndexedFile.lacksAccess`).
        """
        UPDATE files SET uid = NULL, gid = NULL, mode = NULL WHERE kind = 'video' OR (kind = 'heif' AND problems IS NOT NULL);
        """,
        // 17: JPEG XL images are photos now (kind 'jxl'), read again as schema 12's WebP.
        """
        DELETE FROM files WHERE kind IN ('ignored', 'problem') AND path LIKE '%.jxl';
        """,
        // 18: camera RAWs are photos now (kind 'raw'), read again as schema 12's WebP; a RAW named
        // .tif, kept as not a photo, is read again too.
        """
        DELETE FROM files WHERE kind IN ('ignored', 'problem') AND (path LIKE '%.tif' OR path LIKE '%.tiff' OR
            path LIKE '%.dng' OR path LIKE '%.cr2' OR path LIKE '%.cr3' OR path LIKE '%.nef' OR path LIKE '%.nrw' OR
            path LIKE '%.arw' OR path LIKE '%.srf' OR path LIKE '%.sr2' OR path LIKE '%.orf' OR path LIKE '%.raf' OR
            path LIKE '%.rw2' OR path LIKE '%.pef' OR path LIKE '%.srw');
        """,
        // 19: a photo's sidecar (XMP, Google Takeout's JSON: `SidecarEvidence.encoded`). Photos in
        // a folder that holds a file named like a sidecar forget their owner and mode so that a
        // mount reads them again, once, with it (`IndexedFile.lacksAccess`).
        """
        ALTER TABLE files ADD COLUMN sidecar TEXT;
        CREATE TEMP TABLE sidecar_folders AS SELECT DISTINCT rtrim(path, replace(path, '/', '')) AS folder FROM files
            WHERE kind = 'ignored' AND (lower(path) LIKE '%.xmp' OR path LIKE '%.json');
        UPDATE files SET uid = NULL, gid = NULL, mode = NULL
            WHERE kind NOT IN ('ignored', 'problem') AND rtrim(path, replace(path, '/', '')) IN (SELECT folder FROM sidecar_folders);
        DROP TABLE sidecar_folders;
        """,
        // 20: Android motion photos: a JPEG's embedded video range (`PhotoEvidence.motionVideo`).
        // Only JPEGs that may hold one are read again, once (they forget their owner and mode,
        // `IndexedFile.lacksAccess`): those of the makers that write motion photos and those
        // named as Pixel and older Android cameras name them; the rest keep their rows.
        """
        ALTER TABLE files ADD COLUMN motion_offset INTEGER;
        ALTER TABLE files ADD COLUMN motion_length INTEGER;
        UPDATE files SET uid = NULL, gid = NULL, mode = NULL WHERE kind = 'jpeg' AND (make LIKE 'samsung%' OR make LIKE 'Google%'
            OR make LIKE 'Xiaomi%' OR make LIKE 'OnePlus%' OR make LIKE 'motorola%' OR path LIKE '%.MP.jp%g' OR path LIKE '%MVIMG%');
        """,
        // 21: a photo's rating (XMP xmp:Rating, EXIF Rating) for favorites/. Stills that may
        // carry one (every still format with EXIF or XMP) forget their owner and mode so that a
        // mount reads them again, once (`IndexedFile.lacksAccess`): one header read per still.
        """
        ALTER TABLE files ADD COLUMN xmp_rating TEXT;
        ALTER TABLE files ADD COLUMN exif_rating TEXT;
        UPDATE files SET uid = NULL, gid = NULL, mode = NULL WHERE kind IN ('jpeg', 'png', 'heif', 'webp', 'tiff', 'jxl', 'raw');
        """,
        // Appended: the tags that tell a photo's kind (`KindEvidence`, for media-types/). Only
        // the files that may carry them are read again, once (they forget their owner and mode,
        // `IndexedFile.lacksAccess`): iPhones' and Pixels' stills (Apple's CustomRendered, lens
        // and maker note; Google Camera's XMP) and every video (Apple's and Android's keys).
        """
        ALTER TABLE files ADD COLUMN kind_tags TEXT;
        UPDATE files SET uid = NULL, gid = NULL, mode = NULL WHERE kind = 'video'
            OR (kind IN ('jpeg', 'heif') AND (make LIKE 'Apple%' OR make LIKE 'Google%'));
        """,
        // duplicates/: each hashed file's partial and full content hashes (`ContentHashRecord`),
        // valid while the file is the one hashed (its inode, size, mtime and ctime), so that a
        // remount and a rescan hash only files new or changed. No file is read again for it.
        """
        CREATE TABLE content_hashes (path TEXT PRIMARY KEY, inode INTEGER NOT NULL, size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL, ctime_ns INTEGER, partial INTEGER NOT NULL, full TEXT) WITHOUT ROWID;
        """,
        // A photo's GPS position (`gps_lat`, `gps_lon`: degrees as decimal text; EXIF's, or a
        // video's QuickTime location) for places/. Stills with EXIF and videos forget their owner
        // and mode so that a mount reads them again, once (`IndexedFile.lacksAccess`): one header
        // read each.
        """
        ALTER TABLE files ADD COLUMN gps_lat TEXT;
        ALTER TABLE files ADD COLUMN gps_lon TEXT;
        UPDATE files SET uid = NULL, gid = NULL, mode = NULL WHERE kind IN ('jpeg', 'png', 'heif', 'webp', 'tiff', 'jxl', 'raw', 'video');
        """,
        // duplicates/similar/: each hashed still's perceptual hash (`SimilarHashRecord`; NULL:
        // its picture cannot be decoded) and the group its last search put it in (`grp`; NULL:
        // not searched yet), valid while the file is the one hashed, so that a remount hashes
        // only files new or changed and shows the groups without a search. No file is read again for it.
        """
        CREATE TABLE similar_hashes (path TEXT PRIMARY KEY, inode INTEGER NOT NULL, size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL, ctime_ns INTEGER, hash INTEGER, grp INTEGER) WITHOUT ROWID;
        """,
    ]
}
