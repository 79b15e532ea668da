-- PostgreSQL version of migrations/004_dms_and_time.sql: 64-bit integers (Discord ids), double-precision times, generated ids as identity columns.
-- Hidden hands in DMs and turns nobody misses (bot/ui/dm.py, bot/ui/clock.py).

-- The one DM hand message per player and game (kind 'hand', edited in place) and the latest
-- DM turn notice (kind 'turn', replaced by the next one). ``shown`` fingerprints the hidden
-- part of the view the hand message shows, so it is edited only when that changes.
CREATE TABLE dm_messages (
    game       BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('hand', 'turn')),
    channel_id BIGINT NOT NULL,
    message_id BIGINT NOT NULL,
    shown      TEXT,
    PRIMARY KEY (game, user_id, kind)
);

-- /game notify: DM hands and DM turn notices, per game (game = 0: every game). NULL inherits
-- (the game's row, then the every-game row, then on).
CREATE TABLE notify_settings (
    user_id BIGINT NOT NULL,
    game    BIGINT NOT NULL DEFAULT 0,
    hands   BIGINT,
    turns   BIGINT,
    PRIMARY KEY (user_id, game)
);

-- A user whose DMs were refused (Discord 50007): DMs pause until /game notify; ``told`` lists
-- the games whose thread has said so (once each).
CREATE TABLE dm_blocks (
    user_id BIGINT PRIMARY KEY,
    since   DOUBLE PRECISION    NOT NULL,
    told    TEXT    NOT NULL DEFAULT '[]'
);

-- Turn pings held back by quiet hours, sent when they end.
CREATE TABLE deferred_pings (
    game  BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat  BIGINT NOT NULL,
    since DOUBLE PRECISION    NOT NULL,
    PRIMARY KEY (game, seat)
);

-- The version up to which a game's notices (pings) were delivered and the seats it then
-- waited for; after a restart the clock pings whoever a later, undelivered change started
-- waiting for.
CREATE TABLE notice_marks (
    game    BIGINT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    version BIGINT NOT NULL,
    waiting TEXT    NOT NULL DEFAULT '[]'
);

-- Vacation days per player (JSON {"<user id>": {"days": n, "used": k}}), set in the lobby.
ALTER TABLE games ADD COLUMN vacations TEXT NOT NULL DEFAULT '{}';

-- Quiet hours of a server: minutes after local midnight, and the IANA zone or UTC±H offset.
ALTER TABLE guild_settings ADD COLUMN quiet_start BIGINT;
ALTER TABLE guild_settings ADD COLUMN quiet_end BIGINT;
ALTER TABLE guild_settings ADD COLUMN quiet_tz TEXT;
