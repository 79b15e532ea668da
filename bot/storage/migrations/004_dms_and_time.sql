-- Hidden hands in DMs and turns nobody misses (bot/ui/dm.py, bot/ui/clock.py).

-- The one DM hand message per player and game (kind 'hand', edited in place) and the latest
-- DM turn notice (kind 'turn', replaced by the next one). ``shown`` fingerprints the hidden
-- part of the view the hand message shows, so it is edited only when that changes.
CREATE TABLE dm_messages (
    game       INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('hand', 'turn')),
    channel_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    shown      TEXT,
    PRIMARY KEY (game, user_id, kind)
);

-- /game notify: DM hands and DM turn notices, per game (game = 0: every game). NULL inherits
-- (the game's row, then the every-game row, then on).
CREATE TABLE notify_settings (
    user_id INTEGER NOT NULL,
    game    INTEGER NOT NULL DEFAULT 0,
    hands   INTEGER,
    turns   INTEGER,
    PRIMARY KEY (user_id, game)
);

-- A user whose DMs were refused (Discord 50007): DMs pause until /game notify; ``told`` lists
-- the games whose thread has said so (once each).
CREATE TABLE dm_blocks (
    user_id INTEGER PRIMARY KEY,
    since   REAL    NOT NULL,
    told    TEXT    NOT NULL DEFAULT '[]'
);

-- Turn pings held back by quiet hours, sent when they end.
CREATE TABLE deferred_pings (
    game  INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat  INTEGER NOT NULL,
    since REAL    NOT NULL,
    PRIMARY KEY (game, seat)
);

-- The version up to which a game's notices (pings) were delivered and the seats it then
-- waited for; after a restart the clock pings whoever a later, undelivered change started
-- waiting for.
CREATE TABLE notice_marks (
    game    INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    waiting TEXT    NOT NULL DEFAULT '[]'
);

-- Vacation days per player (JSON {"<user id>": {"days": n, "used": k}}), set in the lobby.
ALTER TABLE games ADD COLUMN vacations TEXT NOT NULL DEFAULT '{}';

-- Quiet hours of a server: minutes after local midnight, and the IANA zone or UTC±H offset.
ALTER TABLE guild_settings ADD COLUMN quiet_start INTEGER;
ALTER TABLE guild_settings ADD COLUMN quiet_end INTEGER;
ALTER TABLE guild_settings ADD COLUMN quiet_tz TEXT;
