-- AI seats: a seat played by the computer at a level ('easy', 'normal', 'hard').
-- NULL is a person. A seat added as an AI in a lobby, or handed to one by a moderator, holds
-- a synthetic negative user id (Discord ids are positive), unique within its game; a player's
-- own seat on autopilot keeps that player's id (they may take it back).
ALTER TABLE seats ADD COLUMN ai_level TEXT;
