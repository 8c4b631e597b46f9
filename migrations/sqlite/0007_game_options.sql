-- Game options: the rule set a game follows, games from a position, takebacks by consent and
-- private notes.

-- 'standard', or 'nodraws' (Chesscala's rule without draws, CC-K7)
ALTER TABLE challenges ADD COLUMN rules TEXT NOT NULL DEFAULT 'standard';
-- the position text the game will start from; NULL for the game's standard start
ALTER TABLE challenges ADD COLUMN start_position TEXT;
-- 1 when the game will allow takebacks
ALTER TABLE challenges ADD COLUMN takebacks INTEGER NOT NULL DEFAULT 0;

ALTER TABLE games ADD COLUMN rules TEXT NOT NULL DEFAULT 'standard';
ALTER TABLE games ADD COLUMN takebacks INTEGER NOT NULL DEFAULT 0;
-- 'white' or 'black' while that side asks to take back its last move
ALTER TABLE games ADD COLUMN takeback_offer TEXT;
-- bumped by every change of the moves (a move or a takeback), so a change prepared on one
-- state of the game never lands on another state with the same ply
ALTER TABLE games ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;

-- whether games from a position may be rated in the community (its managers decide)
ALTER TABLE community_settings ADD COLUMN rated_setups INTEGER NOT NULL DEFAULT 0;

-- Moves taken back: gone from the game, kept here as history.
CREATE TABLE takebacks (
    id         INTEGER PRIMARY KEY,
    game_id    INTEGER NOT NULL REFERENCES games (id),
    -- the player who asked
    asked_by   INTEGER NOT NULL REFERENCES players (id),
    -- the plies taken back: from_ply + 1 to to_ply, with their texts, space-separated
    from_ply   INTEGER NOT NULL,
    to_ply     INTEGER NOT NULL,
    moves      TEXT    NOT NULL,
    taken_at   INTEGER NOT NULL
);

CREATE INDEX takebacks_by_game ON takebacks (game_id);

-- A player's private notes on a game, seen only by their author.
CREATE TABLE notes (
    id          INTEGER PRIMARY KEY,
    game_id     INTEGER NOT NULL REFERENCES games (id),
    player_id   INTEGER NOT NULL REFERENCES players (id),
    text        TEXT    NOT NULL,
    created_at  INTEGER NOT NULL
);

CREATE INDEX notes_by_author ON notes (game_id, player_id, id);
