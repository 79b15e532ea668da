-- A move in flight: an interaction acknowledged ("thinking…", or a deferred press) whose move
-- is not committed yet. Written at the acknowledgement, deleted in the transaction that
-- commits the move (or once the interaction is answered otherwise). A row a restart finds was
-- never answered: its token (valid 15 minutes after ``created_at``) tells the player the move
-- was not saved and offers the panel again (bot/ui/moves.py ``Moves.answer_lost_moves``).
CREATE TABLE moves_in_flight (
    interaction_id INTEGER PRIMARY KEY,
    application_id INTEGER NOT NULL,
    token          TEXT    NOT NULL,
    user_id        INTEGER NOT NULL,
    game           INTEGER NOT NULL,
    guild_id       INTEGER,
    locale         TEXT    NOT NULL,
    created_at     REAL    NOT NULL
);
