-- When each chat account first started (Unix seconds): messages sent to it before then were
-- never meant for the bot. Kept in the game database, so every process that may sync the
-- account (a standby taking over the lease) knows it.
CREATE TABLE first_starts (
    platform    TEXT    NOT NULL,
    account     TEXT    NOT NULL,
    started_at  INTEGER NOT NULL,
    PRIMARY KEY (platform, account)
);
