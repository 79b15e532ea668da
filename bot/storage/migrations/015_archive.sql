-- The archive (bot/storage/archive.py): a game over (finished or abandoned) for longer than
-- ARCHIVE_AFTER_DAYS leaves the hot tables (games, seats, actions, outbox, dm_messages,
-- watchers) for one row here: its games row, seats and log as zlib-compressed JSON. It still
-- replays, exports and counts in the ratings (read by its id: Repository.get_game, log).
CREATE TABLE archived_games (
    id          INTEGER PRIMARY KEY,               -- the game's id (games.id), kept
    guild_id    INTEGER,
    game_id     TEXT    NOT NULL,                  -- engine registry key
    status      TEXT    NOT NULL,                  -- 'finished' or 'abandoned'
    ended_at    REAL    NOT NULL,                  -- its last change (games.updated_at)
    state_version INTEGER,                         -- its snapshot's engine state_version (NULL: never
                                                   -- started): an engine change rebuilds it
    archived_at REAL    NOT NULL,
    data        BLOB    NOT NULL                   -- zlib(JSON {"game": row, "seats": rows, "actions": rows})
);
CREATE INDEX archived_games_guild ON archived_games(guild_id);

-- Every user an archived game names (seats, log entries, ids and mentions in its JSON): whom
-- /game forget-me must reach there.
CREATE TABLE archived_users (
    user_id INTEGER NOT NULL,
    game    INTEGER NOT NULL REFERENCES archived_games(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, game)
);

-- A rated game stays marked when it is archived (it counts once): rated_games no longer
-- follows the games row (SQLite drops a foreign key by rebuilding the table).
CREATE TABLE rated_games_kept (
    game     INTEGER PRIMARY KEY,
    rated_at REAL    NOT NULL
);
INSERT INTO rated_games_kept(game, rated_at) SELECT game, rated_at FROM rated_games;
DROP TABLE rated_games;
ALTER TABLE rated_games_kept RENAME TO rated_games;
