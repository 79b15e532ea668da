-- PostgreSQL version of migrations/005_table.sql: 64-bit integers (Discord ids), double-precision times, generated ids as identity columns.
-- The table around the game (bot/ui/table.py): spectators and ratings.

-- /game watch: who follows a game that they do not play. mode 'board': the public board in
-- their DMs (one message, edited in place: channel_id, message_id once sent); 'end': one
-- ping when the game ends. Only the public view ever reaches them.
CREATE TABLE watchers (
    game       BIGINT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    user_id    BIGINT  NOT NULL,
    mode       TEXT    NOT NULL CHECK (mode IN ('board', 'end')),
    channel_id BIGINT,
    message_id BIGINT,
    shown      BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (game, user_id)
);

-- A rating per player per game per server (openskill Plackett-Luce: mu, sigma), with the
-- player's count of rated games and wins there.
CREATE TABLE ratings (
    guild_id   BIGINT  NOT NULL,
    game_id    TEXT    NOT NULL,
    user_id    BIGINT  NOT NULL,
    mu         DOUBLE PRECISION    NOT NULL,
    sigma      DOUBLE PRECISION    NOT NULL,
    games      BIGINT NOT NULL DEFAULT 0,
    wins       BIGINT NOT NULL DEFAULT 0,
    updated_at DOUBLE PRECISION    NOT NULL,
    PRIMARY KEY (guild_id, game_id, user_id)
);

-- The finished games already counted in the ratings (each counts once).
CREATE TABLE rated_games (
    game     BIGINT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    rated_at DOUBLE PRECISION    NOT NULL
);
