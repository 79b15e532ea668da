-- The outbox (docs/DESIGN.md §4): the deliveries an action causes, written in the action's
-- own transaction and marked done only once Discord accepted them. A row names what to
-- deliver (kind + references into the log), never a copy of the log or English text.
--   board   the public board (version: the game version it was asked for; rows coalesce)
--   lines   the public event lines of log entries after_seq < seq <= version
--   ping    the players at payload.seats, whom the game waits for at version
--   end     the final ranking of the game
--   answer  the answer to a typed move (payload: interaction token, typed text, user);
--           the token is wiped when the row is done
CREATE TABLE outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,   -- delivery order within a game
    game        INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('board', 'lines', 'ping', 'end', 'answer')),
    payload     TEXT    NOT NULL DEFAULT '{}',       -- JSON
    nonce       TEXT    NOT NULL,                    -- Discord message nonce (enforce_nonce: sent once)
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT,
    created_at  REAL    NOT NULL,
    done_at     REAL                                 -- NULL while pending
);
CREATE INDEX outbox_pending ON outbox(game, id) WHERE done_at IS NULL;
