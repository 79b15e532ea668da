-- PostgreSQL version of migrations/010_outbox_notices.sql: the kind's CHECK gains 'notice'.
ALTER TABLE outbox DROP CONSTRAINT IF EXISTS outbox_kind_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
    CHECK (kind IN ('board', 'lines', 'ping', 'end', 'answer', 'notice'));
