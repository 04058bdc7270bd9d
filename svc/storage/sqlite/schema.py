"""Every SQL statement of the SQLite backend, in one place.

Layout (in the style of kine): `log` has one row per revision, the change log that watches replay and
that compaction trims; a tombstone row (deleted=1) carries the last value so a DELETE event can
still show the object after older rows are compacted. `live` points each existing key at its
latest log row, so reads of current state are an index range plus a primary-key join.
A log row's `writer` is the user whose request made it (NULL for the server's own writes and for
rows written before the column existed). `meta` holds the current and compacted revisions; the
current one is written in every transaction, so a restart never reuses a revision even when the
newest log rows were compacted.
"""

PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=FULL",
    "PRAGMA temp_store=MEMORY",
    "PRAGMA cache_size=-65536",
    "PRAGMA busy_timeout=5000",
)
NOT_DURABLE = "PRAGMA synchronous=OFF"

CREATE = (
    """CREATE TABLE IF NOT EXISTS log (
        revision INTEGER PRIMARY KEY,
        key TEXT NOT NULL,
        create_revision INTEGER NOT NULL,
        prev_revision INTEGER NOT NULL,
        deleted INTEGER NOT NULL,
        value BLOB NOT NULL,
        writer TEXT
    )""",
    "CREATE INDEX IF NOT EXISTS log_key_revision ON log (key, revision)",
    """CREATE TABLE IF NOT EXISTS live (
        key TEXT PRIMARY KEY,
        create_revision INTEGER NOT NULL,
        mod_revision INTEGER NOT NULL
    ) WITHOUT ROWID""",
    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
    "INSERT OR IGNORE INTO meta (name, value) VALUES ('revision', 1), ('compacted', 0)",
)

# Databases made before the log kept its writers gain the column; ADD COLUMN rewrites no rows.
LOG_COLUMNS = "SELECT name FROM pragma_table_info('log')"
ADD_WRITER = "ALTER TABLE log ADD COLUMN writer TEXT"

READ_META = "SELECT name, value FROM meta"
READ_REVISION = "SELECT value FROM meta WHERE name = 'revision'"
WRITE_REVISION = "UPDATE meta SET value = ? WHERE name = 'revision'"
WRITE_COMPACTED = "UPDATE meta SET value = ? WHERE name = 'compacted'"

GET_LIVE = """SELECT l.key, l.value, v.create_revision, v.mod_revision
    FROM live v JOIN log l ON l.revision = v.mod_revision WHERE v.key = ?"""

RANGE_LIVE = """SELECT l.key, l.value, v.create_revision, v.mod_revision
    FROM live v JOIN log l ON l.revision = v.mod_revision
    WHERE v.key >= ? AND v.key < ? ORDER BY v.key LIMIT ?"""

COUNT_LIVE = "SELECT COUNT(*) FROM live WHERE key >= ? AND key < ?"

RANGE_AT = """SELECT l.key, l.value, l.create_revision, l.revision FROM log l
    WHERE l.key >= ? AND l.key < ? AND l.deleted = 0
      AND l.revision = (SELECT MAX(o.revision) FROM log o WHERE o.key = l.key AND o.revision <= ?)
    ORDER BY l.key LIMIT ?"""

COUNT_AT = """SELECT COUNT(*) FROM log l
    WHERE l.key >= ? AND l.key < ? AND l.deleted = 0
      AND l.revision = (SELECT MAX(o.revision) FROM log o WHERE o.key = l.key AND o.revision <= ?)"""

INSERT_LOG = """INSERT INTO log (revision, key, create_revision, prev_revision, deleted, value, writer)
    VALUES (?, ?, ?, ?, ?, ?, ?)"""
UPSERT_LIVE = """INSERT INTO live (key, create_revision, mod_revision) VALUES (?, ?, ?)
    ON CONFLICT (key) DO UPDATE SET mod_revision = excluded.mod_revision"""
DELETE_LIVE = "DELETE FROM live WHERE key = ?"

CHANGES_AFTER = """SELECT l.revision, l.key, l.create_revision, l.prev_revision, l.deleted, l.value,
        p.value
    FROM log l LEFT JOIN log p ON p.revision = l.prev_revision
    WHERE l.revision > ? AND l.revision <= ? AND l.key >= ? AND l.key < ?
    ORDER BY l.revision LIMIT ?"""

COMPACT = """DELETE FROM log WHERE revision IN (
    SELECT l.revision FROM log l WHERE l.revision <= ?
      AND NOT EXISTS (SELECT 1 FROM live v WHERE v.key = l.key AND v.mod_revision = l.revision)
    LIMIT ?)"""

# A restore stages the snapshot in memory with every revision moved past the server's current one
# (offset ?1), so a resourceVersion clients saw never comes back with another meaning; the staged
# copy then replaces the database through the backup API in one step. A snapshot saved before the
# log kept its writers has no `writer` column: its rows are restored without one (`{writer}` is NULL).
STAGE_RESTORE_LOG = """INSERT INTO log SELECT revision + ?1, key, create_revision + ?1,
    CASE prev_revision WHEN 0 THEN 0 ELSE prev_revision + ?1 END, deleted, value, {writer}
    FROM snapshot.log ORDER BY revision"""
STAGE_RESTORE_LIVE = "INSERT INTO live SELECT key, create_revision + ?1, mod_revision + ?1 FROM snapshot.live"
READ_SNAPSHOT_META = "SELECT name, value FROM snapshot.meta"
SNAPSHOT_LOG_COLUMNS = "SELECT name FROM pragma_table_info('log', 'snapshot')"

HISTORY = """SELECT revision, key, create_revision, prev_revision, deleted, value, writer FROM log
    WHERE revision > ? AND revision <= ? ORDER BY revision LIMIT ?"""

# Moving the keys under one prefix (?3, up to ?4) to another (?1, up to ?5), revisions kept (?2 and ?6:
# where the rest of an old and of a new key starts). A key held under both drops the older of its two
# live entries first; the log keeps both histories.
DROP_OLDER_MOVED = """DELETE FROM live WHERE key >= ?3 AND key < ?4
    AND mod_revision < (SELECT n.mod_revision FROM live n WHERE n.key = ?1 || substr(live.key, ?2))"""
DROP_OLDER_PRESENT = """DELETE FROM live WHERE key >= ?1 AND key < ?5
    AND mod_revision < (SELECT o.mod_revision FROM live o WHERE o.key = ?3 || substr(live.key, ?6))"""
MOVE_LIVE = "UPDATE live SET key = ?1 || substr(key, ?2) WHERE key >= ?3 AND key < ?4"
MOVE_LOG = "UPDATE log SET key = ?1 || substr(key, ?2) WHERE key >= ?3 AND key < ?4"
ANY_UNDER = "SELECT 1 FROM log WHERE key >= ? AND key < ? LIMIT 1"
