-- When each platform's clocks last ran. The gap before the next start is an outage of Pigeon
-- on that platform: nobody could move, so deadlines that fell inside it are moved on by its
-- length ('deadline_moved' notices tell the players).
CREATE TABLE heartbeats (
    platform  TEXT    PRIMARY KEY,
    seen_at   INTEGER NOT NULL
);
