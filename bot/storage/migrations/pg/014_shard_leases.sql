-- Shard leases (bot/storage/leases.py): one row per shard of a shard count. ``token`` is the
-- fencing token, raised at every takeover; ``holder_pid`` / ``holder_start`` name the database
-- session of the holder's lease connection (NULL: given back); ``renewed_at`` is renewed by
-- the holder's heartbeat; ``handover_s`` is how long before the last takeover the previous
-- holder had last renewed it. Times are the server's clock.
CREATE TABLE shard_leases (
    shard_count  BIGINT NOT NULL,
    shard        BIGINT NOT NULL,
    token        BIGINT NOT NULL,
    holder       TEXT   NOT NULL,
    holder_pid   BIGINT,
    holder_start TIMESTAMPTZ,
    taken_at     TIMESTAMPTZ NOT NULL,
    renewed_at   TIMESTAMPTZ NOT NULL,
    handover_s   DOUBLE PRECISION,
    PRIMARY KEY (shard_count, shard)
);

-- The fence of a holder's write transaction, run right before its COMMIT: the lease rows of
-- its shards taken FOR SHARE (a takeover's UPDATE waits for this commit; a commit after a
-- takeover sees the new token) and an error (SQLSTATE SL001) unless each token is still
-- the one given.
CREATE FUNCTION shard_leases_held(want_count BIGINT, want_shards BIGINT[], want_tokens BIGINT[])
RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
    current_token BIGINT;
BEGIN
    FOR i IN 1 .. cardinality(want_shards) LOOP
        SELECT token INTO current_token FROM shard_leases
         WHERE shard_count = want_count AND shard = want_shards[i] FOR SHARE;
        IF current_token IS DISTINCT FROM want_tokens[i] THEN
            RAISE EXCEPTION 'this process no longer holds its shards: shard % of % was taken over (lease token %, now %)',
                want_shards[i], want_count, want_tokens[i], current_token USING ERRCODE = 'SL001';
        END IF;
    END LOOP;
END
$$;
