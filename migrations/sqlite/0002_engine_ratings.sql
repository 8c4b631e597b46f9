-- Games against the built-in opponent, rated games and Glicko-2 ratings per game and community.

-- The community (Discord server, Matrix room, console channel) a game or challenge belongs to:
-- ratings and leaderboards are kept per community. Older rows take their channel.
ALTER TABLE games ADD COLUMN community TEXT;
UPDATE games SET community = channel;
ALTER TABLE challenges ADD COLUMN community TEXT;
UPDATE challenges SET community = channel;

-- 1 when the game counts for ratings (games against the bot never do)
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE challenges ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;

-- the built-in opponent's level (1-5) and side ('white' or 'black') when one side is the bot,
-- NULL between people. While it is the bot's turn the game has no deadline.
ALTER TABLE games ADD COLUMN bot_level INTEGER;
ALTER TABLE games ADD COLUMN bot_side TEXT;

CREATE INDEX games_by_community ON games (community, game_key, status);

-- A player's current Glicko-2 rating in one game and community.
CREATE TABLE ratings (
    player_id   INTEGER NOT NULL REFERENCES players (id),
    game_key    TEXT    NOT NULL,
    community   TEXT    NOT NULL,
    rating      REAL    NOT NULL,
    deviation   REAL    NOT NULL,
    volatility  REAL    NOT NULL,
    games       INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (player_id, game_key, community)
) WITHOUT ROWID;

CREATE INDEX ratings_by_board ON ratings (community, game_key, rating DESC);

-- One row per player of each rated game once its ratings were updated: the primary key makes
-- the update happen once per game, also across restarts and races.
CREATE TABLE rating_changes (
    game_id     INTEGER NOT NULL REFERENCES games (id),
    player_id   INTEGER NOT NULL REFERENCES players (id),
    game_key    TEXT    NOT NULL,
    community   TEXT    NOT NULL,
    -- 1 win, 0.5 draw, 0 loss
    score       REAL    NOT NULL,
    before      REAL    NOT NULL,
    after       REAL    NOT NULL,
    deviation   REAL    NOT NULL,
    changed_at  INTEGER NOT NULL,
    PRIMARY KEY (game_id, player_id)
) WITHOUT ROWID;

CREATE INDEX rating_changes_by_player ON rating_changes (player_id, game_key, community, changed_at);
