-- Notices through the outbox: a moderator's announcement (end, kick,
-- replace, pause, resume) is queued in the transaction of its change as a 'notice' row and
-- sent like the others (once, with the row's nonce; a crash neither loses nor doubles it).
--   notice  payload {"msgs": [[key, params], ...], "mentions": [user ids], "buttons": bool}:
--           catalog messages formatted at delivery in the server's language (no English
--           is stored), posted in the game's channel; buttons: Play ▶ / My view.
-- (Reminders are 'ping' rows with payload "reminder": the count, claimed with the reminder.)
-- SQLite cannot change a CHECK: the table is rebuilt with its rows and ids
-- (migrations/pg/010_outbox_notices.sql changes the constraint in place).
CREATE TABLE outbox_new (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game        INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('board', 'lines', 'ping', 'end', 'answer', 'notice')),
    payload     TEXT    NOT NULL DEFAULT '{}',
    nonce       TEXT    NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT,
    created_at  REAL    NOT NULL,
    done_at     REAL
);
INSERT INTO outbox_new(id, game, version, kind, payload, nonce, attempts, last_error, created_at, done_at)
    SELECT id, game, version, kind, payload, nonce, attempts, last_error, created_at, done_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_new RENAME TO outbox;
CREATE INDEX outbox_pending ON outbox(game, id) WHERE done_at IS NULL;
