-- PostgreSQL version of migrations/008_locales.sql: 64-bit integers (Discord ids), double-precision times, generated ids as identity columns.
-- Languages (bot/ui/locales.py), as catalog locales ('en', 'zh_TW', 'zh_CN', 'ja'):
-- the language a moderator chose for a server's public messages and boards
-- (/game language server:<lang>; NULL: Discord's preferred locale of the server) and the
-- language a player chose for their DMs and private replies (/game language language:<lang>;
-- no row: their Discord client's).
ALTER TABLE guild_settings ADD COLUMN locale TEXT;

CREATE TABLE user_locales (
    user_id BIGINT PRIMARY KEY,
    locale  TEXT    NOT NULL
);
