-- PostgreSQL version of migrations/006_guild_purges.sql: 64-bit integers (Discord ids), double-precision times, generated ids as identity columns.
-- Data deletion (bot/ui/operator.py): a server the bot was removed from
-- (on_guild_remove) has its data purged at purge_at (GUILD_PURGE_DAYS after left_at) by the
-- purge loop; the row is deleted when the bot rejoins first (on_guild_join), or after the purge.
CREATE TABLE guild_purges (
    guild_id BIGINT  PRIMARY KEY,
    left_at  DOUBLE PRECISION    NOT NULL,
    purge_at DOUBLE PRECISION    NOT NULL
);
