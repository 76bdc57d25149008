#!/bin/sh
# Copy pbem's SQLite database with `pbem backup` (SQLite's online backup API, safe while pbem
# writes; copying the file with cp is not: recent commits live in the -wal file). The command
# checks the copy with PRAGMA integrity_check; this script compresses it and keeps it for
# PBEM_BACKUP_KEEP_DAYS days. The database is the one PBEM_DATABASE_URL names (pbem.env). Run by
# pbem-backup.timer; see docs/deploy.md. With PostgreSQL, pbem backup refuses: use pg_dump.
set -eu
pbem=${PBEM_BIN:-/opt/pbem/venv/bin/pbem}
dest=${PBEM_BACKUP_DIR:-/var/backups/pbem}
keep_days=${PBEM_BACKUP_KEEP_DAYS:-14}

stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
tmp="$dest/.pbem-$stamp.db"
trap 'rm -f "$tmp" "$tmp.gz"' EXIT

"$pbem" backup "$tmp"
gzip -9 "$tmp"
mv "$tmp.gz" "$dest/pbem-$stamp.db.gz"
find "$dest" -name 'pbem-*.db.gz' -mtime +"$keep_days" -delete
echo "pbem-backup: wrote $dest/pbem-$stamp.db.gz"
