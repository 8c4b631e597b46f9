-- Pigeon's game database. Times are Unix seconds (UTC). A game is its start position plus its
-- moves; `games.position` and `games.ply` cache the replayed state and are checked on load.

CREATE TABLE players (
    id            INTEGER PRIMARY KEY,
    platform      TEXT    NOT NULL,
    platform_id   TEXT    NOT NULL,
    display_name  TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    UNIQUE (platform, platform_id)
);

CREATE INDEX players_by_name ON players (platform, display_name COLLATE NOCASE);

CREATE TABLE settings (
    player_id     INTEGER PRIMARY KEY REFERENCES players (id),
    turn_pings    INTEGER NOT NULL DEFAULT 1,
    -- 'mover' (the player to move), 'mine' (my own side), 'white' or 'black'
    viewpoint     TEXT    NOT NULL DEFAULT 'mine'
);

CREATE TABLE games (
    id             INTEGER PRIMARY KEY,
    platform       TEXT    NOT NULL,
    channel        TEXT    NOT NULL,
    game_key       TEXT    NOT NULL,
    start_position TEXT    NOT NULL,
    white_id       INTEGER NOT NULL REFERENCES players (id),
    black_id       INTEGER NOT NULL REFERENCES players (id),
    days_per_move  INTEGER NOT NULL,
    ply            INTEGER NOT NULL DEFAULT 0,
    position       TEXT    NOT NULL,
    -- 'active' or 'finished'
    status         TEXT    NOT NULL,
    -- '1-0', '0-1', '1/2-1/2' once finished
    result         TEXT,
    end_reason     TEXT,
    -- 'white' or 'black' while that side offers a draw
    draw_offer     TEXT,
    deadline       INTEGER,
    rematch_of     INTEGER REFERENCES games (id),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    finished_at    INTEGER
);

CREATE INDEX games_by_white ON games (white_id, status);
CREATE INDEX games_by_black ON games (black_id, status);
CREATE INDEX games_by_channel ON games (platform, channel, status);
CREATE INDEX games_by_deadline ON games (status, deadline);

CREATE TABLE moves (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    ply        INTEGER NOT NULL,
    text       TEXT    NOT NULL,
    -- NULL for a pass the product played for a player who could not move
    player_id  INTEGER REFERENCES players (id),
    played_at  INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

CREATE TABLE challenges (
    id             INTEGER PRIMARY KEY,
    platform       TEXT    NOT NULL,
    channel        TEXT    NOT NULL,
    challenger_id  INTEGER NOT NULL REFERENCES players (id),
    -- NULL for an open challenge anyone in the channel may accept
    challenged_id  INTEGER REFERENCES players (id),
    game_key       TEXT    NOT NULL,
    days_per_move  INTEGER NOT NULL,
    -- the challenger's colour: 'white', 'black' or 'random'
    color          TEXT    NOT NULL,
    -- 'open', 'accepted', 'declined', 'cancelled', 'expired'
    status         TEXT    NOT NULL,
    game_id        INTEGER REFERENCES games (id),
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL
);

CREATE INDEX challenges_by_channel ON challenges (platform, channel, status);

CREATE TABLE reminders (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    ply      INTEGER NOT NULL,
    -- 'day' (24 hours left) or 'hour' (1 hour left)
    kind     TEXT    NOT NULL,
    sent_at  INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply, kind)
) WITHOUT ROWID;

CREATE TABLE events (
    platform     TEXT    NOT NULL,
    event_id     TEXT    NOT NULL,
    received_at  INTEGER NOT NULL,
    PRIMARY KEY (platform, event_id)
) WITHOUT ROWID;
