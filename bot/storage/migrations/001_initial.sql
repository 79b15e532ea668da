-- Games, seats and the append-only action log (design §4).
CREATE TABLE games (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id          TEXT    NOT NULL,                 -- engine registry key
    guild_id         INTEGER,
    channel_id       INTEGER NOT NULL,                 -- where /game new was used
    thread_id        INTEGER,                          -- the game's thread, if any
    board_channel_id INTEGER,                          -- channel/thread holding the board message
    board_message_id INTEGER,
    lobby_message_id INTEGER,
    host_user_id     INTEGER NOT NULL,
    status           TEXT    NOT NULL DEFAULT 'lobby'
                     CHECK (status IN ('lobby', 'active', 'finished', 'abandoned')),
    paused           INTEGER NOT NULL DEFAULT 0,
    seed             INTEGER NOT NULL,                 -- secret; never shown
    options          TEXT    NOT NULL DEFAULT '{}',    -- JSON
    players          INTEGER,
    state            TEXT,                             -- JSON snapshot (a cache of the log)
    version          INTEGER NOT NULL DEFAULT 0,       -- = seq of the last log entry
    move_timeout     INTEGER NOT NULL,                 -- seconds
    deadline         REAL,                             -- unix time, NULL when nobody is waited for
    reminded         INTEGER NOT NULL DEFAULT 0,       -- reminders sent for the current deadline
    waiting          TEXT    NOT NULL DEFAULT '[]',    -- JSON list of seats the deadline is for
    created_at       REAL    NOT NULL,
    updated_at       REAL    NOT NULL
);
CREATE INDEX games_status ON games(status, deadline);
CREATE INDEX games_channel ON games(channel_id);

CREATE TABLE seats (
    game      INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    name      TEXT    NOT NULL,                        -- display name when seated
    status    TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'left')),
    PRIMARY KEY (game, seat)
);
CREATE INDEX seats_user ON seats(user_id);

CREATE TABLE actions (
    game     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,                         -- 1, 2, ...; games.version after it
    kind     TEXT    NOT NULL CHECK (kind IN ('player', 'chance', 'system')),
    seat     INTEGER,                                  -- seat, -1 for chance, NULL for system
    action   TEXT    NOT NULL,                         -- JSON
    events   TEXT    NOT NULL DEFAULT '[]',            -- JSON list of Event.to_json()
    user_id  INTEGER,
    at       REAL    NOT NULL,
    PRIMARY KEY (game, seq)
);

CREATE TABLE guild_settings (
    guild_id          INTEGER PRIMARY KEY,
    moderator_role_id INTEGER
);

CREATE TABLE preferences (
    user_id  INTEGER NOT NULL,
    game_id  TEXT    NOT NULL,
    key      TEXT    NOT NULL,
    value    TEXT    NOT NULL,
    PRIMARY KEY (user_id, game_id, key)
);
