-- Correspondence features: conditional moves, leave (vacation), the settings of reminders and
-- of the daily digest.

-- A player's leave, from `started_at` to `ends_at` as asked; `ended_at` once it ended (early
-- with `vacation end`, or by itself at `ends_at`).
CREATE TABLE leaves (
    id          INTEGER PRIMARY KEY,
    player_id   INTEGER NOT NULL REFERENCES players (id),
    started_at  INTEGER NOT NULL,
    ends_at     INTEGER NOT NULL,
    ended_at    INTEGER
);

CREATE INDEX leaves_running ON leaves (ends_at) WHERE ended_at IS NULL;
CREATE INDEX leaves_of ON leaves (player_id, started_at);

-- The clock of a game standing still while the player to move is on leave: the game's
-- deadline is NULL meanwhile, and `left_secs` is the time that was left.
CREATE TABLE frozen_clocks (
    game_id    INTEGER PRIMARY KEY REFERENCES games (id),
    player_id  INTEGER NOT NULL REFERENCES players (id),
    left_secs  INTEGER NOT NULL
);

-- Leave allowance of a community, in days per calendar year; NULL means the default.
ALTER TABLE community_settings ADD COLUMN leave_days INTEGER;

-- The player a notice is about ('leave_started', 'leave_ended', 'digest').
ALTER TABLE notices ADD COLUMN player_id INTEGER REFERENCES players (id);

-- A player's correspondence settings: reminder times (seconds before a deadline, largest
-- first, separated by spaces; NULL means the default), the daily digest's local time
-- ('HH:MM') and IANA time zone, and the next time the digest falls due (claimed by moving it on).
CREATE TABLE correspondence_settings (
    player_id    INTEGER PRIMARY KEY REFERENCES players (id),
    reminders    TEXT,
    digest_time  TEXT,
    digest_zone  TEXT,
    digest_next  INTEGER
);

CREATE INDEX digests_due ON correspondence_settings (digest_next) WHERE digest_next IS NOT NULL;

-- A player's conditional line in a game: the moves expected of the opponent and the player's
-- replies, alternating, from the game's ply `ply` (where the opponent is to move), in the
-- interchange notation separated by ';'.
CREATE TABLE conditionals (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games (id),
    player_id   INTEGER NOT NULL REFERENCES players (id),
    ply         INTEGER NOT NULL,
    moves       TEXT    NOT NULL,
    created_at  INTEGER NOT NULL
);

CREATE INDEX conditionals_of_game ON conditionals (game_id, player_id);
