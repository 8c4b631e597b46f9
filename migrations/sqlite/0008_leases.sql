-- Work only one process may do at a time (syncing a Matrix account): held by one process
-- until it expires, renewed while the holder lives, taken over by another once it lapses.
CREATE TABLE leases (
    name        TEXT    PRIMARY KEY,
    holder      TEXT    NOT NULL,
    expires_at  INTEGER NOT NULL
);
