-- PostgreSQL version of migrations/013_moves_in_flight.sql: 64-bit integers (Discord ids),
-- double-precision times.
CREATE TABLE moves_in_flight (
    interaction_id BIGINT PRIMARY KEY,
    application_id BIGINT NOT NULL,
    token          TEXT   NOT NULL,
    user_id        BIGINT NOT NULL,
    game           BIGINT NOT NULL,
    guild_id       BIGINT,
    locale         TEXT   NOT NULL,
    created_at     DOUBLE PRECISION NOT NULL
);
