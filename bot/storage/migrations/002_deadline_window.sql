-- The length of the current deadline's window (seconds): reminders fire at 50 % and 90 %
-- of it. A game's spec may give some decisions their own window (e.g. a reaction).
ALTER TABLE games ADD COLUMN deadline_window INTEGER;
