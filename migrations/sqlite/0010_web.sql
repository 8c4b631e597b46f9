-- The address of each game's web page, /g/<web_id>: 16 random bytes in lowercase hex, so that
-- a page is found only through the links the bot posts, never by counting game numbers. New
-- games get theirs from the operating system's CSPRNG when they are created; the games
-- already stored get theirs here.
ALTER TABLE games ADD COLUMN web_id TEXT;
UPDATE games SET web_id = lower(hex(randomblob(16))) WHERE web_id IS NULL;
CREATE UNIQUE INDEX games_web_id ON games (web_id);
