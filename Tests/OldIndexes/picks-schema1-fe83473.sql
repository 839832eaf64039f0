PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE picks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    library TEXT NOT NULL,
    name TEXT NOT NULL,
    source_path TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    picked_at_ns INTEGER NOT NULL,
    target TEXT NOT NULL,
    UNIQUE (library, name)
);
INSERT INTO picks VALUES(1,'/work/dumps/O/lib','PXL_20240517_120304567.jpg','DCIM/Camera/PXL_20240517_120304567.jpg','39433b3197248db4f11be4cd92fb176e',1796484332960837509,'../by-date/2024/2024-05/2024-05-17/PXL_20240517_120304567.jpg');
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('picks',1);
CREATE INDEX picks_by_library ON picks (library, id);
COMMIT;
PRAGMA user_version=1;
PRAGMA application_id=0;
