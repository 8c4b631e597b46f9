-- Correspondence tournaments: a round robin (single or double) or a Swiss of N rounds in one
-- game, played as ordinary games marked with their tournament and round.
CREATE TABLE tournaments (
    id              INTEGER PRIMARY KEY,
    platform        TEXT    NOT NULL,
    -- where it was created; its notices go to `thread` when the adapter opened one
    channel         TEXT    NOT NULL,
    community       TEXT    NOT NULL,
    thread          TEXT,
    name            TEXT    NOT NULL,
    game_key        TEXT    NOT NULL,
    -- 'roundrobin', 'double' (double round robin) or 'swiss'
    format          TEXT    NOT NULL,
    -- Swiss: the rounds planned; round robins: the rounds of the Berger table, set at start
    rounds          INTEGER NOT NULL,
    days_per_move   INTEGER NOT NULL,
    rated           INTEGER NOT NULL,
    max_players     INTEGER,
    -- the start time, or NULL for a start by the organiser
    starts_at       INTEGER,
    -- Swiss: days a round may last before its unfinished games are adjudicated, or NULL
    round_days      INTEGER,
    -- 'open' (joining), 'running', 'finished' or 'cancelled'
    state           TEXT    NOT NULL,
    organiser_id    INTEGER NOT NULL REFERENCES players (id),
    -- the colour drawn for the top seed in round 1, at the start: 1 White, 0 Black
    top_seed_white  INTEGER,
    current_round   INTEGER NOT NULL DEFAULT 0,
    -- Swiss: when the current round's unfinished games are adjudicated
    round_deadline  INTEGER,
    -- round robin: when the next daily standings are due
    standings_next  INTEGER,
    created_at      INTEGER NOT NULL,
    started_at      INTEGER,
    finished_at     INTEGER
);

CREATE INDEX tournaments_by_state ON tournaments (state);
CREATE INDEX tournaments_by_community ON tournaments (platform, community, state);

CREATE TABLE tournament_players (
    tournament_id    INTEGER NOT NULL REFERENCES tournaments (id),
    player_id        INTEGER NOT NULL REFERENCES players (id),
    joined_at        INTEGER NOT NULL,
    -- the start rank (0 the top seed), by rating at the start, then by joining
    seed             INTEGER,
    rating           REAL,
    withdrawn_at     INTEGER,
    -- the round being played when the player withdrew
    withdrawn_round  INTEGER,
    PRIMARY KEY (tournament_id, player_id)
);

-- The pairing-allocated byes of a Swiss (a point, no game).
CREATE TABLE tournament_byes (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
    round          INTEGER NOT NULL,
    player_id      INTEGER NOT NULL REFERENCES players (id),
    PRIMARY KEY (tournament_id, round)
);

ALTER TABLE games ADD COLUMN tournament_id INTEGER REFERENCES tournaments (id);
ALTER TABLE games ADD COLUMN tournament_round INTEGER;
CREATE INDEX games_by_tournament ON games (tournament_id, tournament_round)
    WHERE tournament_id IS NOT NULL;

-- The tournament a notice is about (round paired, standings, tournament over); the round in
-- `ply`.
ALTER TABLE notices ADD COLUMN tournament_id INTEGER REFERENCES tournaments (id);

-- Who may create tournaments in a community: 'managers' (NULL, the default) or 'anyone'.
ALTER TABLE community_settings ADD COLUMN tournament_creators TEXT;
