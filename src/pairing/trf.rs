//! Reading a tournament from TRF (FIDE's Tournament Report File, TRF-16 and TRF-2026 as pairing
//! programs write them).
//!
//! What is read: `001` player lines (start rank in columns 5–8, rating in 49–52, points in
//! 81–84, then one 10-column block per round: opponent, colour `w`/`b`/`-`, result
//! `1 0 = + - W L D U H F Z`), `XXR`/`142` (the planned number of rounds), `XXC white1|black1`
//! and `152 W|B` (the top seed's colour in round 1), `092`/`192` (the pairing system) and the
//! `BBW BBD BBL BBZ BBF BBU` point values. Other lines (tournament name, dates, arbiters) are
//! ignored; features this reader does not implement (accelerations, forbidden pairs, team
//! tournaments) are refused rather than silently ignored.

use super::tournament::Player;
use super::tournament::{Color, Outcome, PointSystem, Round, Tournament};

/// What is wrong with a tournament file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum TrfError {
    /// One line does not read.
    #[error("line {line}: {problem}")]
    Line {
        /// One-based line number.
        line: usize,
        /// What is wrong, and where.
        problem: String,
    },
    /// The lines read, but do not describe a tournament that can be paired.
    #[error("{0}")]
    Tournament(String),
}

/// Reads a tournament whose next round is to be paired.
///
/// # Errors
/// [`TrfError`] naming the line and what is wrong with it, or the inconsistency found.
pub fn read(text: &str) -> Result<Tournament, TrfError> {
    let mut reader = Reader::default();
    for (index, line) in text.lines().enumerate() {
        reader.line(line).map_err(|problem| TrfError::Line {
            line: index + 1,
            problem,
        })?;
    }
    reader.finish()
}

#[derive(Debug, Default)]
struct Reader {
    /// Players by start rank, with the file's score (tenths) of each.
    players: Vec<Option<(Player, u32)>>,
    played_rounds: usize,
    planned_rounds: Option<usize>,
    points: PointSystem,
    pairing_bye_given: bool,
    initial_color: Option<Color>,
}

impl Reader {
    fn line(&mut self, line: &str) -> Result<(), String> {
        let Some(prefix) = line.get(..3) else {
            return Ok(());
        };
        let rest = &line[3..];
        match prefix {
            "001" => self.player(line),
            "XXR" | "142" => {
                let rounds = rest.trim();
                match rounds.parse::<usize>() {
                    Ok(rounds) if rounds > 0 => {
                        self.planned_rounds = Some(rounds);
                        Ok(())
                    }
                    _ => Err(format!(
                        "the number of rounds should be a positive number, not {rounds:?}"
                    )),
                }
            }
            "XXC" => {
                for token in rest.split_whitespace() {
                    match token {
                        "white1" => self.initial_color = Some(Color::White),
                        "black1" => self.initial_color = Some(Color::Black),
                        "rank" => {
                            return Err("pairing by rank (`XXC rank`) is not supported".into());
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
            "152" => match rest.trim() {
                "W" => {
                    self.initial_color = Some(Color::White);
                    Ok(())
                }
                "B" => {
                    self.initial_color = Some(Color::Black);
                    Ok(())
                }
                other => Err(format!("the first colour should be W or B, not {other:?}")),
            },
            "092" | "192" => match rest.trim() {
                "FIDE_DUTCH_2025" | "FIDE_DUTCH" => Ok(()),
                other => Err(format!(
                    "the pairing system {other:?} is not supported; use FIDE_DUTCH_2025"
                )),
            },
            "BBW" | "BBD" | "BBL" | "BBZ" | "BBF" | "BBU" => {
                let value = score(rest)?;
                match prefix {
                    "BBW" => {
                        self.points.win = value;
                        if !self.pairing_bye_given {
                            self.points.pairing_bye = value;
                        }
                    }
                    "BBD" => self.points.draw = value,
                    "BBL" => self.points.loss = value,
                    "BBZ" => self.points.zero_bye = value,
                    "BBF" => self.points.forfeit_loss = value,
                    _ => {
                        self.points.pairing_bye = value;
                        self.pairing_bye_given = true;
                    }
                }
                Ok(())
            }
            "013" | "310" => Err("team tournaments are not supported".into()),
            "162" | "240" | "250" | "260" | "299" | "XXA" | "XXP" => Err(format!(
                "{prefix} lines (point systems, byes planned ahead, accelerations, forbidden \
                 pairs, abnormal points) are not supported; give points with BBW, BBD, BBL, \
                 BBZ, BBF and BBU"
            )),
            _ => Ok(()),
        }
    }

    fn player(&mut self, line: &str) -> Result<(), String> {
        let chars: Vec<char> = line.chars().collect();
        if chars.len() < 84 {
            return Err(format!(
                "a player line needs at least 84 columns (up to the points), it has {}",
                chars.len()
            ));
        }
        let field = |from: usize, to: usize| chars[from..to].iter().collect::<String>();
        let id = player_number(&field(4, 8)).map_err(|problem| format!("start rank: {problem}"))?;
        let rating_text = field(48, 52);
        let rating = if rating_text.trim().is_empty() {
            0
        } else {
            rating_text
                .trim()
                .parse()
                .map_err(|_| format!("the rating {:?} is not a number", rating_text.trim()))?
        };
        let file_score = score(&field(80, 84)).map_err(|problem| format!("points: {problem}"))?;

        let mut rounds = Vec::new();
        let mut skipped = 0;
        let mut start = 91;
        while start + 8 <= chars.len() {
            let round = rounds.len() + skipped + 1;
            let block = field(start, start + 8);
            let entry = entry(
                id,
                &field(start, start + 4),
                chars[start + 5],
                chars[start + 7],
            )
            .map_err(|problem| format!("round {round} ({:?}): {problem}", block.trim()))?;
            match entry {
                None => skipped += 1,
                Some(entry) => {
                    rounds.extend(std::iter::repeat_n(Round::absent(id), skipped));
                    skipped = 0;
                    rounds.push(entry);
                }
            }
            start += 10;
        }
        if chars[start.min(chars.len())..].iter().any(|&c| c != ' ') {
            return Err(format!(
                "unexpected text after the last round, at column {}",
                start + 1
            ));
        }
        // A last entry the player was not paired for may be a bye given ahead for the round
        // being paired.
        let counted = match rounds.last() {
            Some(last) if !last.paired => rounds.len() - 1,
            _ => rounds.len(),
        };
        self.played_rounds = self.played_rounds.max(counted);
        if self.players.len() <= id {
            self.players.resize(id + 1, None);
        }
        if self.players[id].is_some() {
            return Err(format!("start rank {} appears twice", id + 1));
        }
        let player = Player {
            id,
            rank: id,
            rating,
            rounds,
            score: 0,
            played_games: 0,
            color_imbalance: 0,
            color_preference: None,
            repeated_color: None,
            strong_preference: false,
            valid: true,
            present: true,
        };
        self.players[id] = Some((player, file_score));
        Ok(())
    }

    fn finish(self) -> Result<Tournament, TrfError> {
        let invalid = TrfError::Tournament;
        let mut players = Vec::with_capacity(self.players.len());
        let mut file_scores = Vec::with_capacity(self.players.len());
        for (index, entry) in self.players.into_iter().enumerate() {
            let (player, file_score) = entry.ok_or_else(|| {
                invalid(format!(
                    "there is no player line (001) for start rank {}",
                    index + 1
                ))
            })?;
            players.push(player);
            file_scores.push(file_score);
        }
        if players.is_empty() {
            return Err(invalid("the file has no players (001 lines)".into()));
        }
        let mut played_rounds = self.played_rounds;
        // Everyone already has an entry for the next round: that round is complete.
        if players
            .iter()
            .all(|player| player.rounds.len() > played_rounds)
        {
            played_rounds += 1;
        }
        for player in &mut players {
            if player.rounds.len() < played_rounds {
                player
                    .rounds
                    .resize(played_rounds, Round::absent(player.id));
            }
        }
        let planned_rounds = self.planned_rounds.ok_or_else(|| {
            invalid("the number of rounds is missing: add a line such as `XXR 9`".into())
        })?;
        if played_rounds >= planned_rounds {
            return Err(invalid(format!(
                "all {planned_rounds} rounds are already played (XXR {planned_rounds})"
            )));
        }
        let mut tournament = Tournament {
            players,
            played_rounds,
            planned_rounds,
            points: self.points,
            initial_color: Color::White,
        };
        tournament.derive();
        tournament.initial_color = self
            .initial_color
            .or_else(|| infer_first_color(&tournament))
            .ok_or_else(|| {
                invalid(
                    "the colour of the top seed in round 1 is unknown: add `XXC white1` or \
                     `XXC black1`"
                        .into(),
                )
            })?;
        check_opponents(&tournament)?;
        for (player, file_score) in tournament.players.iter().zip(file_scores) {
            let ahead = player
                .rounds
                .get(played_rounds)
                .map_or(0, |round| tournament.points_of(player, round));
            if player.valid && file_score != player.score && file_score != player.score + ahead {
                return Err(invalid(format!(
                    "player {} has {} points in the file, but the results add up to {}",
                    player.id + 1,
                    show_score(file_score),
                    show_score(player.score)
                )));
            }
        }
        Ok(tournament)
    }
}

/// Reads one round block: `None` when it is blank.
fn entry(id: usize, opponent: &str, color: char, result: char) -> Result<Option<Round>, String> {
    let mut blank = true;
    let mut played = true;
    let mut against = id;
    if opponent != "    " {
        if opponent != "0000" {
            against = player_number(opponent).map_err(|problem| format!("opponent: {problem}"))?;
            if against == id {
                return Err("a player cannot play themselves".into());
            }
        }
        blank = false;
    }
    if against == id {
        played = false;
    }
    let given = match color {
        'w' => Some(Color::White),
        'b' => Some(Color::Black),
        '-' | ' ' => None,
        other => return Err(format!("the colour should be w, b or -, not {other:?}")),
    };
    if color != ' ' {
        blank = false;
    }
    if given.is_none() {
        played = false;
    }
    let color = given;
    if against == id && color.is_some() {
        return Err("a colour without an opponent".into());
    }
    let result = result.to_ascii_uppercase();
    let outcome = match result {
        'D' | '=' | 'H' => Outcome::Draw,
        '+' | 'W' | '1' | 'F' | 'U' => Outcome::Win,
        '-' | 'L' | '0' | 'Z' | ' ' => Outcome::Loss,
        other => {
            return Err(format!(
                "the result should be one of 1 0 = + - W L D U H F Z, not {other:?}"
            ));
        }
    };
    if matches!(result, '+' | '-' | 'H' | 'F' | 'U' | 'Z' | ' ') {
        played = false;
        if !matches!(result, '+' | '-') && against != id {
            return Err(format!("the result {result} needs opponent 0000"));
        }
    } else if color.is_none() && (result != '=' || against != id) {
        return Err(format!("the played result {result} needs a colour w or b"));
    }
    if result != ' ' {
        blank = false;
    }
    Ok((!blank).then_some(Round {
        opponent: against,
        color,
        outcome,
        played,
        paired: against != id || matches!(result, 'U' | '+'),
    }))
}

/// A start rank (one-based in the file, zero-based here).
fn player_number(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("0 is not a start rank".into()),
        Ok(number) if number <= 9999 => Ok(number - 1),
        _ => Err(format!("{:?} is not a start rank", text.trim())),
    }
}

/// A score such as `3.5` or `10`, in tenths of a point.
fn score(text: &str) -> Result<u32, String> {
    let text = text.trim();
    let bad = || format!("{text:?} is not a score such as 3.5");
    let (whole, tenths) = text.split_once('.').unwrap_or((text, "0"));
    if whole.is_empty() && tenths.is_empty() || tenths.len() != 1 {
        return Err(bad());
    }
    let whole: u32 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    let tenths: u32 = tenths.parse().map_err(|_| bad())?;
    if whole > 999 || !text.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return Err(bad());
    }
    Ok(whole * 10 + tenths)
}

fn show_score(tenths: u32) -> String {
    format!("{}.{}", tenths / 10, tenths % 10)
}

/// The colour the top seed had in round 1, read back from the first round where anyone was
/// given a colour (the top seed of that round takes the first colour; the second, the other).
fn infer_first_color(tournament: &Tournament) -> Option<Color> {
    let first = tournament
        .players
        .iter()
        .filter_map(|player| player.rounds.iter().position(|round| round.color.is_some()))
        .min()?;
    let mut seen = 0;
    let mut result = None;
    for player in &tournament.players {
        if player
            .rounds
            .iter()
            .take(first + 1)
            .any(|round| round.paired)
        {
            if result.is_none() {
                let color = player.rounds.get(first).and_then(|round| round.color);
                result = if seen % 2 == 1 {
                    color.map(Color::invert)
                } else {
                    color
                };
            }
            seen += 1;
        }
    }
    result
}

/// Every game played is written the same way on both players' lines.
fn check_opponents(tournament: &Tournament) -> Result<(), TrfError> {
    for player in tournament.players.iter().filter(|player| player.valid) {
        for (index, round) in player.rounds.iter().enumerate() {
            if !round.played {
                continue;
            }
            let consistent = tournament
                .players
                .get(round.opponent)
                .filter(|opponent| opponent.valid)
                .and_then(|opponent| opponent.rounds.get(index))
                .is_some_and(|theirs| {
                    theirs.played && theirs.color != round.color && theirs.opponent == player.id
                });
            if !consistent {
                return Err(TrfError::Tournament(format!(
                    "round {} of player {} (against {}) does not match the opponent's line",
                    index + 1,
                    player.id + 1,
                    round.opponent + 1
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{TrfError, read};
    use crate::pairing::tournament::{Color, Outcome};

    /// A player line: start rank, points, then the round blocks as written.
    fn player(id: usize, points: &str, rounds: &[&str]) -> String {
        let mut line = format!(
            "001 {id:>4}      {:<33} 2000{:28}{points:>4}{id:>5}",
            format!("Player {id}"),
            ""
        );
        for round in rounds {
            line.push_str(&format!("  {round:>8}"));
        }
        line
    }

    fn file(lines: &[String]) -> String {
        lines.join("\n") + "\n"
    }

    #[test]
    fn reads_players_results_and_colour_preferences() {
        let text = file(&[
            "012 Test".into(),
            player(1, "2.0", &["3 w 1", "2 b 1"]),
            player(2, "1.5", &["4 b 1", "1 w 0"]).replace("1.5", "1.0"),
            player(3, "0.5", &["1 b 0", "0000 - H"]),
            player(4, "1.0", &["2 w 0", "0000 - U"]),
            "092 FIDE_DUTCH_2025".into(),
            "XXR 5".into(),
        ]);
        let tournament = read(&text).expect("the file reads");
        assert_eq!(tournament.played_rounds, 2);
        assert_eq!(tournament.planned_rounds, 5);
        assert_eq!(tournament.players.len(), 4);
        let [one, two, three, four] = &tournament.players[..] else {
            panic!("four players")
        };
        assert_eq!(
            (one.score, two.score, three.score, four.score),
            (20, 10, 5, 10)
        );
        // White then Black: a mild preference for White again.
        assert_eq!(one.color_preference, Some(Color::White));
        assert!(!one.strong_preference && !one.absolute_preference());
        // One game with Black, then a half-point bye: a strong preference for White.
        assert_eq!(three.color_preference, Some(Color::White));
        assert!(three.strong_preference);
        assert_eq!(three.rounds[1].outcome, Outcome::Draw);
        assert!(!three.rounds[1].played && !three.rounds[1].paired);
        // The pairing-allocated bye: paired, a win, no bye again.
        assert!(four.rounds[1].is_pairing_bye(3));
        assert!(!tournament.eligible_for_bye(four));
        assert!(tournament.eligible_for_bye(three));
        // No XXC: the top seed's colour in round 1 is read back from the games.
        assert_eq!(tournament.initial_color, Color::White);
    }

    #[test]
    fn two_games_with_one_colour_make_an_absolute_preference() {
        let text = file(&[
            player(1, "2.0", &["2 w 1", "3 w 1"]),
            player(2, "0.0", &["1 b 0", "4 w 0"]),
            player(3, "0.0", &["4 b 0", "1 b 0"]),
            player(4, "2.0", &["3 w 1", "2 b 1"]),
            "XXR 4".into(),
            "XXC black1".into(),
        ]);
        let tournament = read(&text).expect("the file reads");
        let one = &tournament.players[0];
        assert_eq!(one.color_preference, Some(Color::Black));
        assert_eq!(one.color_imbalance, 2);
        assert!(one.absolute_preference());
        assert_eq!(one.repeated_color, Some(Color::White));
        assert_eq!(tournament.initial_color, Color::Black);
    }

    #[test]
    fn forfeits_count_points_but_not_games() {
        let text = file(&[
            player(1, "1.0", &["2 w +"]),
            player(2, "0.0", &["1 b -"]),
            "XXR 3".into(),
            "XXC white1".into(),
        ]);
        let tournament = read(&text).expect("the file reads");
        let (one, two) = (&tournament.players[0], &tournament.players[1]);
        assert_eq!((one.score, two.score), (10, 0));
        assert_eq!((one.played_games, two.played_games), (0, 0));
        assert!(one.rounds[0].paired && !one.rounds[0].played);
        // A forfeit win is a point without playing: no bye after it.
        assert!(!tournament.eligible_for_bye(one));
        assert!(tournament.eligible_for_bye(two));
    }

    fn line_error(text: &str) -> (usize, String) {
        match read(text) {
            Err(TrfError::Line { line, problem }) => (line, problem),
            other => panic!("expected a line error, got {other:?}"),
        }
    }

    #[test]
    fn bad_lines_are_named_with_what_is_wrong() {
        let (line, problem) = line_error(&file(&["XXR 3".into(), player(1, "1.0", &["2 q 1"])]));
        assert_eq!(line, 2);
        assert!(
            problem.contains("round 1") && problem.contains("colour"),
            "{problem}"
        );

        let (line, problem) = line_error(&file(&[player(1, "1.0", &["2 w ?"])]));
        assert_eq!(line, 1);
        assert!(problem.contains("result"), "{problem}");

        let (_, problem) = line_error(&file(&[player(1, "x.5", &[])]));
        assert!(problem.contains("points"), "{problem}");

        let (_, problem) = line_error("001    1  short\n");
        assert!(problem.contains("84 columns"), "{problem}");

        let (_, problem) = line_error("XXR many\n");
        assert!(problem.contains("number of rounds"), "{problem}");

        let (_, problem) = line_error("092 FIDE_BURSTEIN\n");
        assert!(problem.contains("not supported"), "{problem}");

        let (line, problem) = line_error(&file(&[player(1, "0.0", &[]), player(1, "0.0", &[])]));
        assert_eq!(line, 2);
        assert!(problem.contains("appears twice"), "{problem}");

        let (_, problem) = line_error(&file(&[player(1, "1.0", &["1 w 1"])]));
        assert!(problem.contains("themselves"), "{problem}");

        let (_, problem) = line_error(&file(&[player(1, "1.0", &["2 w U"])]));
        assert!(problem.contains("0000"), "{problem}");
    }

    fn tournament_error(text: &str) -> String {
        match read(text) {
            Err(TrfError::Tournament(problem)) => problem,
            other => panic!("expected a tournament error, got {other:?}"),
        }
    }

    #[test]
    fn inconsistent_tournaments_are_refused() {
        let problem = tournament_error(&file(&[
            player(1, "1.0", &["2 w 1"]),
            player(2, "0.0", &["1 w 0"]),
            "XXR 3".into(),
        ]));
        assert!(problem.contains("opponent's line"), "{problem}");

        let problem = tournament_error(&file(&[
            player(1, "0.5", &["2 w 1"]),
            player(2, "0.0", &["1 b 0"]),
            "XXR 3".into(),
        ]));
        assert!(problem.contains("add up to 1.0"), "{problem}");

        let problem = tournament_error(&file(&[
            player(1, "1.0", &["2 w 1"]),
            player(2, "0.0", &["1 b 0"]),
        ]));
        assert!(problem.contains("XXR"), "{problem}");

        let problem = tournament_error(&file(&[
            player(1, "1.0", &["2 w 1"]),
            player(2, "0.0", &["1 b 0"]),
            "XXR 1".into(),
        ]));
        assert!(problem.contains("already played"), "{problem}");

        let problem = tournament_error(&file(&[
            player(1, "0.0", &[]),
            player(3, "0.0", &[]),
            "XXR 3".into(),
        ]));
        assert!(problem.contains("start rank 2"), "{problem}");

        let problem = tournament_error(&file(&[
            player(1, "0.0", &[]),
            player(2, "0.0", &[]),
            "XXR 3".into(),
        ]));
        assert!(problem.contains("XXC white1"), "{problem}");

        let problem = tournament_error("012 Nobody\nXXR 3\n");
        assert!(problem.contains("no players"), "{problem}");
    }

    #[test]
    fn arbitrary_text_never_panics() {
        for text in [
            "",
            "\n\n",
            "001",
            "001 ",
            "001    1",
            "XXC",
            "BBW x",
            "001 \u{e9}\u{e9}\u{e9}",
        ] {
            let _ = read(text);
        }
        let long = player(1, "1.0", &["2 w 1"]) + "\u{e9}";
        let _ = read(&long);
    }
}
