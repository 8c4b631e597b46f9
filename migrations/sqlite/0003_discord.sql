-- Settings of a community (a Discord server): whether each game gets a thread of its own.
CREATE TABLE community_settings (
    platform   TEXT    NOT NULL,
    community  TEXT    NOT NULL,
    threads    INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (platform, community)
);
