-- The address of each tournament's web page, /t/<web_id>: 16 random bytes in lowercase hex,
-- like the games' pages, so that a page is found only through the links the bot posts. New
-- tournaments get theirs from the operating system's CSPRNG when they are created; the
-- tournaments already stored get a random UUID's 32 hex digits here.
ALTER TABLE tournaments ADD COLUMN web_id TEXT;
UPDATE tournaments SET web_id = replace(gen_random_uuid()::text, '-', '') WHERE web_id IS NULL;
CREATE UNIQUE INDEX tournaments_web_id ON tournaments (web_id);
