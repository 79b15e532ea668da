-- PostgreSQL version of migrations/002_deadline_window.sql: 64-bit integers (Discord ids), double-precision times, generated ids as identity columns.
-- The length of the current deadline's window (seconds): reminders fire at 50 % and 90 %
-- of it. A game's spec may give some decisions their own window (e.g. a reaction).
ALTER TABLE games ADD COLUMN deadline_window BIGINT;
