-- Post-game analyses, one per game: queued when a game between people ends with both sides
-- having moved (in the transaction that ends it) or when someone asks, claimed by one process
-- at a time until `claimed_until` (FOR UPDATE SKIP LOCKED; a process that dies mid-way leaves
-- it to another once the claim lapses), and done with the engine's evaluation of every
-- position as JSON.
CREATE TABLE analyses (
    game_id        BIGINT  PRIMARY KEY REFERENCES games (id),
    -- 'queued', 'running', 'done' or 'failed'
    state          TEXT    NOT NULL DEFAULT 'queued',
    -- the evaluations of every position (JSON), once done
    result         TEXT,
    -- while running: when the claim lapses
    claimed_until  BIGINT,
    -- how many times it was claimed; the number of a claim guards its result
    attempts       BIGINT  NOT NULL DEFAULT 0,
    created_at     BIGINT  NOT NULL,
    finished_at    BIGINT
);

CREATE INDEX analyses_waiting ON analyses (created_at, game_id)
    WHERE state IN ('queued', 'running');
