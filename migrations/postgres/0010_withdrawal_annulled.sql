-- A round-robin withdrawal before half of the player's games were played annuls all their
-- results (FIDE C.05): their games count for no one, and the standings show them annulled.
ALTER TABLE tournament_players ADD COLUMN annulled BOOLEAN NOT NULL DEFAULT FALSE;
