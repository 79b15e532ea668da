-- Data deletion (bot/ui/operator.py): a server the bot was removed from
-- (on_guild_remove) has its data purged at purge_at (GUILD_PURGE_DAYS after left_at) by the
-- purge loop; the row is deleted when the bot rejoins first (on_guild_join), or after the purge.
CREATE TABLE guild_purges (
    guild_id BIGINT  PRIMARY KEY,
    left_at  REAL    NOT NULL,
    purge_at REAL    NOT NULL
);
