-- PostgreSQL version of migrations/015_archive.sql: 64-bit integers (Discord ids),
-- double-precision times, bytea.
CREATE TABLE archived_games (
    id          BIGINT  PRIMARY KEY,               -- the game's id (games.id), kept
    guild_id    BIGINT,
    game_id     TEXT    NOT NULL,                  -- engine registry key
    status      TEXT    NOT NULL,                  -- 'finished' or 'abandoned'
    ended_at    DOUBLE PRECISION NOT NULL,         -- its last change (games.updated_at)
    state_version BIGINT,                        -- its snapshot's state_version (NULL: never started)
    archived_at DOUBLE PRECISION NOT NULL,
    data        BYTEA   NOT NULL                   -- zlib(JSON {"game": row, "seats": rows, "actions": rows})
);
CREATE INDEX archived_games_guild ON archived_games(guild_id);

CREATE TABLE archived_users (
    user_id BIGINT NOT NULL,
    game    BIGINT NOT NULL REFERENCES archived_games(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, game)
);

-- A rated game stays marked when it is archived (it counts once).
ALTER TABLE rated_games DROP CONSTRAINT IF EXISTS rated_games_game_fkey;
