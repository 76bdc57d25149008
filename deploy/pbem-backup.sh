#!/bin/sh
# Copy pbem's SQLite database with SQLite's online backup API, which is safe while pbem writes
# (copying the file with cp is not: recent commits live in the -wal file). The copy is checked,
# compressed, and kept for PBEM_BACKUP_KEEP_DAYS days. Run by pbem-backup.timer; see docs/deploy.md.
set -eu
db=${PBEM_BACKUP_DATABASE:-/var/lib/pbem/pbem.db}
dest=${PBEM_BACKUP_DIR:-/var/backups/pbem}
keep_days=${PBEM_BACKUP_KEEP_DAYS:-14}

# sqlite3 would quietly create an empty database in its place and back that up.
if [ ! -f "$db" ]; then
    echo "pbem-backup: no database at $db" >&2
    exit 1
fi
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
tmp="$dest/.pbem-$stamp.db"
trap 'rm -f "$tmp" "$tmp.gz"' EXIT

# .timeout: wait for a busy writer rather than fail (as pbem itself does).
sqlite3 "$db" ".timeout 15000" ".backup '$tmp'"
check=$(sqlite3 "$tmp" "PRAGMA integrity_check;")
if [ "$check" != ok ]; then
    echo "pbem-backup: the copy of $db fails integrity_check: $check" >&2
    exit 1
fi
gzip -9 "$tmp"
mv "$tmp.gz" "$dest/pbem-$stamp.db.gz"
find "$dest" -name 'pbem-*.db.gz' -mtime +"$keep_days" -delete
echo "pbem-backup: wrote $dest/pbem-$stamp.db.gz"
