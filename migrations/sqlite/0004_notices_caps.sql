-- What the clocks make happen is recorded in the same transaction as the change itself, and
-- stays pending until a bot has handed it to its platform: a failed delivery is tried again.
CREATE TABLE notices (
    id            INTEGER PRIMARY KEY,
    platform      TEXT    NOT NULL,
    -- 'reminder', 'timeout', 'bot_move' or 'challenge_expired'
    kind          TEXT    NOT NULL,
    game_id       INTEGER REFERENCES games (id),
    challenge_id  INTEGER REFERENCES challenges (id),
    -- the game's ply the notice is about (for a bot move: the ply before it)
    ply           INTEGER,
    -- reminders: the seconds left when it fell due
    left_secs     INTEGER,
    created_at    INTEGER NOT NULL,
    -- taken by a bot for delivery at this time; a claim older than a few minutes lapses
    claimed_at    INTEGER,
    attempts      INTEGER NOT NULL DEFAULT 0,
    delivered_at  INTEGER,
    -- given up: it could not be built or delivered after several attempts
    failed_at     INTEGER
);

CREATE INDEX notices_pending ON notices (platform, id) WHERE delivered_at IS NULL AND failed_at IS NULL;

-- Set when a game can no longer be replayed or its clock failed: the clocks skip it and the
-- log says why, until an operator looks at it.
ALTER TABLE games ADD COLUMN attention TEXT;

-- Caps per community; NULL means the default.
ALTER TABLE community_settings ADD COLUMN max_open_challenges INTEGER;
ALTER TABLE community_settings ADD COLUMN max_active_games INTEGER;
ALTER TABLE community_settings ADD COLUMN max_bot_games INTEGER;
ALTER TABLE community_settings ADD COLUMN max_challenges_per_opponent INTEGER;

-- Processed chat events are pruned by age.
CREATE INDEX events_by_age ON events (received_at);
