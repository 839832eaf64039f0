#!/usr/bin/env python3
"""Random live changes to a mounted library must end where a fresh scan of the result starts.

  scripts/soak-live.py ALBUMFS_BINARY [SEED [OPERATIONS [FILES]]]   (defaults 1, 150, 1500)

Generates a library of FILES small camera JPEGs (`albumfs sample --count`: all of one size and
mtime, the hardest case for telling files apart by identity), mounts it, and makes OPERATIONS
random changes in SOURCE while listing and reading through the mount: files renamed, moved to
other folders (keeping or changing their name), folders renamed, copies made as `cp -p` makes
them (mtime kept), files deleted, mtimes changed, new folders (some named Screenshots) filled,
one file moved over another, one rewritten in place with another's bytes (its inode, size and
mtime kept). Then it compares what the mount shows (every view: names, sources, capture times,
sizes) with a remount on the same index and with a mount that reads everything again from no
index, and checks the live mount's flat views read their sources' bytes under inodes of their
own. Prints one line per mount and `OK` or `DIFF` (with the first differences);
exits 0 only for OK. Temporary files live under a folder of its own in /tmp, removed at the end.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1]
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
operations = int(sys.argv[3]) if len(sys.argv) > 3 else 150
count = int(sys.argv[4]) if len(sys.argv) > 4 else 1500
rng = random.Random(seed)
work = tempfile.mkdtemp(prefix="albumfs-soak-")
src, mnt = work + "/library", work + "/mnt"
os.makedirs(mnt)
env = dict(os.environ, XDG_CACHE_HOME=work + "/cache", XDG_DATA_HOME=work + "/data")


def run(args):
    subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)


def mount():
    run([binary, src, mnt])


def unmount():
    run(["fusermount3", "-u", mnt])
    for _ in range(200):  # the daemon is gone once nothing names the mountpoint
        if subprocess.run(["pgrep", "-f", mnt], stdout=subprocess.DEVNULL).returncode != 0:
            return
        time.sleep(0.05)


def status():
    with open(mnt + "/.albumfs/status") as f:
        return dict(line.rstrip("\n").split(": ", 1) for line in f if ": " in line)


def shown():
    """Every entry of the photo views: what it is, as a user sees it."""
    out = {}
    for view in ["non-screenshots", "screenshots"]:
        for name in os.listdir(mnt + "/" + view):
            p = mnt + "/" + view + "/" + name
            out[view + "/" + name] = (os.getxattr(p, "user.albumfs.source").decode(),
                                      os.getxattr(p, "user.albumfs.capture_time").decode(), os.stat(p).st_size)
    for folder, _, names in os.walk(mnt + "/by-date"):
        for name in names:
            out[os.path.relpath(folder + "/" + name, mnt)] = os.getxattr(folder + "/" + name, "user.albumfs.source").decode()
    return out


def inconsistent():
    """Entries of the flat views whose bytes through the mount are not their source's, and inode
    numbers shared by two entries (an inode must stand for one file, whatever the kernel cached)."""
    problems, owners = [], {}
    for view in ["non-screenshots", "screenshots"]:
        for name in os.listdir(mnt + "/" + view):
            p = mnt + "/" + view + "/" + name
            with open(p, "rb") as f:
                through = f.read()
            source = os.getxattr(p, "user.albumfs.source").decode()
            with open(source, "rb") as f:
                if f.read() != through:
                    problems.append("bytes of " + view + "/" + name)
            ino = os.stat(p).st_ino
            if ino in owners:
                problems.append("inode %d of %s and %s" % (ino, owners[ino], view + "/" + name))
            owners[ino] = view + "/" + name
    return problems


def visible(walk_files):
    found = []
    for folder, subfolders, names in os.walk(src):
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and d != "@eaDir"]
        found += [os.path.join(folder, n) for n in names] if walk_files else [os.path.join(folder, d) for d in subfolders]
    return found


def change(i):
    files, folders = visible(True), visible(False)
    op = rng.choice(["rename", "rename", "move", "move-folder", "copy", "delete", "touch", "new-folder", "over", "rewrite"])
    if op == "rename" and files:
        f = rng.choice(files)
        os.rename(f, os.path.join(os.path.dirname(f), "r%d_%s" % (i, os.path.basename(f))))
    elif op == "move" and files and folders:
        f, d = rng.choice(files), rng.choice(folders)
        os.rename(f, os.path.join(d, os.path.basename(f) if rng.random() < 0.5 else "m%d.jpg" % i))
    elif op == "move-folder" and folders:
        d = rng.choice(folders)
        os.rename(d, "%s_%d" % (d, i))
    elif op == "copy" and files:
        f = rng.choice(files)
        shutil.copy2(f, os.path.join(os.path.dirname(f), "c%d_%s" % (i, os.path.basename(f))))
    elif op == "delete" and files:
        os.unlink(rng.choice(files))
    elif op == "touch" and files:
        os.utime(rng.choice(files), (time.time(), time.time() - rng.randint(0, 10**8)))
    elif op == "new-folder" and files and folders:
        new = os.path.join(rng.choice(folders), "Screenshots" if rng.random() < 0.3 else "d%d" % i)
        os.makedirs(new, exist_ok=True)
        for f in rng.sample(files, min(5, len(files))):
            target = os.path.join(new, os.path.basename(f))
            os.rename(f, target + "_%d" % i if os.path.exists(target) else target)
    elif op == "over" and len(files) > 1:
        a, b = rng.sample(files, 2)
        os.rename(a, b)
    elif op == "rewrite" and len(files) > 1:
        # Another photo's bytes written over one of the same size, in place, its mtime set back:
        # inode, size and mtime as they were, another date inside (exiftool -P -overwrite_original_in_place).
        a, b = rng.sample(files, 2)
        st = os.stat(a)
        with open(b, "rb") as f:
            data = f.read()
        if len(data) == st.st_size:
            with open(a, "r+b") as f:
                f.write(data)
            os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns))


try:
    run([binary, "sample", src, "--count", str(count)])
    mount()
    for i in range(operations):
        try:
            change(i)
        except OSError:
            pass  # a file another change took away: nothing to compare
        if rng.random() < 0.3:
            time.sleep(rng.random() * 0.3)
        if rng.random() < 0.2:
            try:
                shown()
                # Bytes the kernel then holds: a stale page under a reused inode would show at the end.
                for name in rng.sample(os.listdir(mnt + "/non-screenshots"), 20):
                    with open(mnt + "/non-screenshots/" + name, "rb") as f:
                        f.read()
            except (OSError, ValueError):
                pass  # listed, then gone: the tree moved on
    # The last changes' debounce, settle time and rescans: wait until the views hold still (the
    # same twice, a second apart, with no scan running), for 30 s at most.
    time.sleep(2)
    live, deadline = shown(), time.time() + 30
    while time.time() < deadline:
        time.sleep(1)
        again, s1 = shown(), status()
        if again == live and s1["scan_state"] == "done":
            break
        live = again
    live, s1 = shown(), status()
    wrong = inconsistent()
    unmount()
    mount()
    again, s2 = shown(), status()
    unmount()
    shutil.rmtree(work + "/cache")
    mount()
    fresh, s3 = shown(), status()
    unmount()
    ok = True
    for name, seen, s in [("live", live, s1), ("remount", again, s2), ("fresh", fresh, s3)]:
        print("%-8s %5s photos, %5s headers read, %4s scans" % (name, s["photos"], s["header_reads"], s["scans"]))
        if seen != fresh:
            ok = False
            gone, extra = sorted(set(fresh) - set(seen))[:5], sorted(set(seen) - set(fresh))[:5]
            changed = sorted(k for k in set(seen) & set(fresh) if seen[k] != fresh[k])[:5]
            print("  differs from a fresh scan: missing %s, extra %s, changed %s" % (gone, extra, changed))
    if wrong:
        ok = False
        print("  live mount inconsistent: %d entries, first %s" % (len(wrong), wrong[:5]))
    print("seed %d, %d operations: %s" % (seed, operations, "OK" if ok else "DIFF"))
    sys.exit(0 if ok else 1)
finally:
    subprocess.run(["fusermount3", "-u", mnt], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(work, ignore_errors=True)
