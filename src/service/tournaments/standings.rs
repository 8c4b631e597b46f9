//! Standings and tie-breaks, computed from the results alone (pure: no store, no clock).
//!
//! Points are in tenths (a win 10, a draw 5, the pairing-allocated bye 10, a forfeit win 10);
//! tie-breaks in hundredths, so that Sonneborn-Berger's products stay whole numbers.
//!
//! - Sonneborn-Berger (round robins): over the games played on the board, each opponent's
//!   points times the points scored against them. Forfeited games count for points but not
//!   for Sonneborn-Berger.
//! - Buchholz (Swiss): the sum, over the player's rounds, of the opponent's adjusted score;
//!   Buchholz Cut-1 leaves out the lowest of those. Unplayed rounds follow the FIDE
//!   tie-break regulations (C.07, 2023, article 16): in an opponent's adjusted score each of
//!   the opponent's unplayed rounds (bye, forfeit either way, absence after a withdrawal)
//!   counts as a draw; a round the player did not play themselves counts as a game against
//!   a dummy opponent with the player's own score. A round still being played counts once
//!   its game has ended.

use std::cmp::Reverse;

/// Which tie-breaks a table uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TieBreaks {
    /// Sonneborn-Berger.
    RoundRobin,
    /// Buchholz Cut-1, then Buchholz.
    Swiss,
}

impl TieBreaks {
    /// The short names of the tie-breaks, in order.
    #[must_use]
    pub fn names(self) -> &'static [&'static str] {
        match self {
            TieBreaks::RoundRobin => &["SB"],
            TieBreaks::Swiss => &["BH-C1", "BH"],
        }
    }
}

/// How a game ended, for White.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Score {
    WhiteWins,
    Draw,
    BlackWins,
}

impl Score {
    /// From a stored result (`1-0`, `0-1`, `1/2-1/2`).
    #[must_use]
    pub fn from_result(result: &str) -> Option<Score> {
        match result {
            "1-0" => Some(Score::WhiteWins),
            "0-1" => Some(Score::BlackWins),
            "1/2-1/2" => Some(Score::Draw),
            _ => None,
        }
    }

    /// The points of White and of Black, in tenths.
    fn points(self) -> (u32, u32) {
        match self {
            Score::WhiteWins => (10, 0),
            Score::Draw => (5, 5),
            Score::BlackWins => (0, 10),
        }
    }
}

/// One game of the tournament, by player index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GameResult {
    pub round: usize,
    pub white: usize,
    pub black: usize,
    /// `None` while it is being played (or when it was aborted).
    pub score: Option<Score>,
    /// Whether it was played on the board (not forfeited).
    pub played: bool,
}

/// One line of the table, by player index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Line {
    /// 1 for the leader; players tied on points and every tie-break share a rank.
    pub rank: usize,
    pub player: usize,
    /// Tenths of a point.
    pub points: u32,
    /// Games finished (on the board or by forfeit).
    pub games: u32,
    /// Hundredths, in the order of [`TieBreaks::names`].
    pub tie_breaks: Vec<u32>,
}

/// What each player did in one round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// A finished game: the opponent, the points scored, whether played on the board.
    Game(usize, u32, bool),
    /// A game not finished yet.
    Pending,
    /// The pairing-allocated bye.
    Bye,
    /// Not paired (withdrawn, or before joining).
    Absent,
}

/// The table of a tournament of `players` players after `rounds` rounds (the current one
/// included), best first.
#[must_use]
pub fn standings(
    players: usize,
    rounds: usize,
    games: &[GameResult],
    byes: &[(usize, usize)],
    kind: TieBreaks,
) -> Vec<Line> {
    let mut entries = vec![vec![Entry::Absent; rounds]; players];
    for game in games {
        let Some(round) = game.round.checked_sub(1).filter(|&r| r < rounds) else {
            continue;
        };
        let (white, black) = match game.score {
            Some(score) => {
                let (w, b) = score.points();
                (
                    Entry::Game(game.black, w, game.played),
                    Entry::Game(game.white, b, game.played),
                )
            }
            None => (Entry::Pending, Entry::Pending),
        };
        if game.white < players && game.black < players {
            entries[game.white][round] = white;
            entries[game.black][round] = black;
        }
    }
    for &(round, player) in byes {
        if let Some(round) = round.checked_sub(1).filter(|&r| r < rounds)
            && player < players
        {
            entries[player][round] = Entry::Bye;
        }
    }
    let points: Vec<u32> = entries
        .iter()
        .map(|rounds| {
            rounds
                .iter()
                .map(|entry| match entry {
                    Entry::Game(_, points, _) => *points,
                    Entry::Bye => 10,
                    Entry::Pending | Entry::Absent => 0,
                })
                .sum()
        })
        .collect();
    // For Buchholz: the points from games on the board, every unplayed round a draw.
    let adjusted: Vec<u32> = entries
        .iter()
        .map(|rounds| {
            rounds
                .iter()
                .map(|entry| match entry {
                    Entry::Game(_, points, true) => *points,
                    Entry::Game(_, _, false) | Entry::Bye | Entry::Absent => 5,
                    Entry::Pending => 0,
                })
                .sum()
        })
        .collect();
    let mut lines: Vec<Line> = (0..players)
        .map(|player| {
            let mine = &entries[player];
            let games = mine
                .iter()
                .filter(|entry| matches!(entry, Entry::Game(..)))
                .count() as u32;
            let tie_breaks = match kind {
                TieBreaks::RoundRobin => vec![
                    mine.iter()
                        .map(|entry| match entry {
                            Entry::Game(opponent, scored, true) => points[*opponent] * scored,
                            _ => 0,
                        })
                        .sum(),
                ],
                TieBreaks::Swiss => {
                    let contributions: Vec<u32> = mine
                        .iter()
                        .filter_map(|entry| match entry {
                            Entry::Game(opponent, _, true) => Some(adjusted[*opponent] * 10),
                            Entry::Game(_, _, false) | Entry::Bye | Entry::Absent => {
                                Some(points[player] * 10)
                            }
                            Entry::Pending => None,
                        })
                        .collect();
                    let total: u32 = contributions.iter().sum();
                    let lowest = contributions.iter().min().copied().unwrap_or(0);
                    vec![total - lowest, total]
                }
            };
            Line {
                rank: 0,
                player,
                points: points[player],
                games,
                tie_breaks,
            }
        })
        .collect();
    lines.sort_by_key(|line| {
        (
            Reverse(line.points),
            Reverse(line.tie_breaks.clone()),
            line.player,
        )
    });
    for index in 0..lines.len() {
        lines[index].rank = if index > 0
            && lines[index].points == lines[index - 1].points
            && lines[index].tie_breaks == lines[index - 1].tie_breaks
        {
            lines[index - 1].rank
        } else {
            index + 1
        };
    }
    lines
}

/// Tenths of a point as people write them: `2`, `2½`, `½`.
#[must_use]
pub fn points_text(tenths: u32) -> String {
    let (whole, half) = (tenths / 10, tenths % 10 >= 5);
    match (whole, half) {
        (0, true) => String::from("½"),
        (whole, true) => format!("{whole}½"),
        (whole, false) => whole.to_string(),
    }
}

/// Hundredths as a short decimal: `7`, `7.5`, `6.25`.
#[must_use]
pub fn tie_break_text(hundredths: u32) -> String {
    let (whole, part) = (hundredths / 100, hundredths % 100);
    match part {
        0 => whole.to_string(),
        part if part % 10 == 0 => format!("{whole}.{}", part / 10),
        part => format!("{whole}.{part:02}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(round: usize, white: usize, black: usize, score: Score) -> GameResult {
        GameResult {
            round,
            white,
            black,
            score: Some(score),
            played: true,
        }
    }

    #[test]
    fn sonneborn_berger_weighs_wins_by_the_opponents_points() {
        use Score::{BlackWins, Draw, WhiteWins};
        // Four players: 0 beats 1, draws 2, loses to 3; 1 beats 2 and 3; 2 beats 3.
        let games = [
            game(1, 0, 1, WhiteWins),
            game(1, 2, 3, WhiteWins),
            game(2, 2, 0, Draw),
            game(2, 1, 3, WhiteWins),
            game(3, 0, 3, BlackWins),
            game(3, 2, 1, BlackWins),
        ];
        let lines = standings(4, 3, &games, &[], TieBreaks::RoundRobin);
        // Points: 0: 1.5, 1: 2, 2: 1.5, 3: 1.
        assert_eq!(lines[0].player, 1);
        assert_eq!(lines[0].points, 20);
        // Player 0: beat 1 (2 points) + half of 2's 1.5 = 2.75; player 2: beat 3 (1) + half
        // of 0's 1.5 = 1.75. Player 0 is second on SB.
        assert_eq!((lines[1].player, lines[1].tie_breaks[0]), (0, 275));
        assert_eq!((lines[2].player, lines[2].tie_breaks[0]), (2, 175));
        assert_eq!((lines[3].player, lines[3].rank, lines[3].games), (3, 4, 3));
    }

    #[test]
    fn forfeits_count_for_points_but_not_for_sonneborn_berger() {
        let mut forfeit = game(1, 0, 1, Score::WhiteWins);
        forfeit.played = false;
        let lines = standings(2, 1, &[forfeit], &[], TieBreaks::RoundRobin);
        assert_eq!((lines[0].player, lines[0].points), (0, 10));
        assert_eq!(lines[0].tie_breaks, [0]);
        assert_eq!(lines[0].games, 1);
    }

    #[test]
    fn buchholz_counts_byes_and_unplayed_rounds_as_fide_does() {
        use Score::{BlackWins, WhiteWins};
        // Three players, two rounds: round 1 0-1 (0 wins), 2 has the bye; round 2 2-0 (0
        // wins as Black), 1 has the bye.
        let games = [game(1, 0, 1, WhiteWins), game(2, 2, 0, BlackWins)];
        let byes = [(1, 2), (2, 1)];
        let lines = standings(3, 2, &games, &byes, TieBreaks::Swiss);
        // Points: 0: 2, 1: 1 (bye), 2: 1 (bye).
        assert_eq!((lines[0].player, lines[0].points), (0, 20));
        // 0's opponents: 1 and 2, each with one loss on the board and one unplayed round
        // (a draw: 0.5): BH 1, Cut-1 0.5.
        assert_eq!(lines[0].tie_breaks, [50, 100]);
        // 1: opponent 0 (adjusted 2) and a dummy with 1's own 1 point: BH 3, Cut-1 2.
        let one = lines.iter().find(|l| l.player == 1).expect("player 1");
        assert_eq!(one.tie_breaks, [200, 300]);
        assert_eq!(one.games, 1);
    }

    #[test]
    fn pending_games_give_nothing_yet() {
        let pending = GameResult {
            round: 1,
            white: 0,
            black: 1,
            score: None,
            played: true,
        };
        let lines = standings(2, 1, &[pending], &[], TieBreaks::Swiss);
        assert!(lines.iter().all(|l| l.points == 0 && l.games == 0));
        assert!(lines.iter().all(|l| l.tie_breaks == [0, 0] && l.rank == 1));
    }

    #[test]
    fn points_and_tie_breaks_read_as_people_write_them() {
        assert_eq!(points_text(25), "2½");
        assert_eq!(points_text(5), "½");
        assert_eq!(points_text(30), "3");
        assert_eq!(tie_break_text(275), "2.75");
        assert_eq!(tie_break_text(750), "7.5");
        assert_eq!(tie_break_text(700), "7");
    }
}
