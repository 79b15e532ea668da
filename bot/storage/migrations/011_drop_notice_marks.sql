-- The notice_marks table (migration 004) is no longer read or written: pings are outbox rows
-- composed when they are sent (bot.service.plan_deliveries, bot/ui/notices.py). Dropped with
-- its rows (the version up to which a game's pings went out, now the outbox's done_at).
DROP TABLE IF EXISTS notice_marks;
