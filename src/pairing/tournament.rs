//! A Swiss tournament so far: the players, their past rounds, and what the pairing rules derive
//! from them (scores, colour preferences, floats, bye eligibility).

/// A piece colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Color {
    /// White.
    White,
    /// Black.
    Black,
}

impl Color {
    /// The other colour.
    #[must_use]
    pub fn invert(self) -> Self {
        match self {
            Self::White => Self::Black,
            Self::Black => Self::White,
        }
    }
}

/// The result of one round for one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// A loss, a forfeit loss or a zero-point bye.
    Loss,
    /// A draw or a half-point bye.
    Draw,
    /// A win, a forfeit win, a full-point bye or the pairing-allocated bye.
    Win,
}

/// One round of one player's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Round {
    /// The opponent's index, or the player's own index when there was no opponent.
    pub opponent: usize,
    /// The colour played, if the player was given one.
    pub color: Option<Color>,
    /// The result.
    pub outcome: Outcome,
    /// Whether a game was actually played over the board (not forfeited, not a bye).
    pub played: bool,
    /// Whether the player was paired (against an opponent, or given the pairing-allocated bye).
    pub paired: bool,
}

impl Round {
    /// A round the player was absent from (a zero-point bye).
    #[must_use]
    pub fn absent(player: usize) -> Self {
        Self {
            opponent: player,
            color: None,
            outcome: Outcome::Loss,
            played: false,
            paired: false,
        }
    }

    /// Whether this round is the pairing-allocated bye of `player`.
    #[must_use]
    pub fn is_pairing_bye(&self, player: usize) -> bool {
        self.opponent == player && self.paired
    }
}

/// The points a tournament awards, in tenths of a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PointSystem {
    /// A win (default 1).
    pub win: u32,
    /// A draw or half-point bye (default 0.5).
    pub draw: u32,
    /// A lost game (default 0).
    pub loss: u32,
    /// A zero-point bye or an absence (default 0).
    pub zero_bye: u32,
    /// A forfeit loss (default 0).
    pub forfeit_loss: u32,
    /// The pairing-allocated bye (default 1).
    pub pairing_bye: u32,
}

impl Default for PointSystem {
    fn default() -> Self {
        Self {
            win: 10,
            draw: 5,
            loss: 0,
            zero_bye: 0,
            forfeit_loss: 0,
            pairing_bye: 10,
        }
    }
}

impl PointSystem {
    /// The points `player` earned in `round`.
    #[must_use]
    pub fn points(&self, player: usize, round: &Round) -> u32 {
        match round.outcome {
            Outcome::Loss if !round.paired => self.zero_bye,
            Outcome::Loss if round.played => self.loss,
            Outcome::Loss => self.forfeit_loss,
            Outcome::Draw => self.draw,
            Outcome::Win if round.is_pairing_bye(player) => self.pairing_bye,
            Outcome::Win => self.win,
        }
    }
}

/// One player of a tournament, with the data the pairing rules derive from the history.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Player {
    /// Index by start rank (0 for the top seed).
    pub id: usize,
    /// Pairing number for colours and ties: the index among the players still in the
    /// tournament.
    pub rank: usize,
    /// Rating, 0 when unknown.
    pub rating: u32,
    /// The rounds so far (and a bye already given for the next round, if any).
    pub rounds: Vec<Round>,
    /// Score in tenths of a point, over the played rounds.
    pub score: u32,
    /// Games actually played.
    pub played_games: usize,
    /// The difference between games with one colour and with the other.
    pub color_imbalance: usize,
    /// The colour the player would like next.
    pub color_preference: Option<Color>,
    /// The colour of the last two played games when they were the same.
    pub repeated_color: Option<Color>,
    /// A strong (not absolute) colour preference.
    pub strong_preference: bool,
    /// Whether the player is in the tournament (has been paired, or has no bye ahead).
    pub valid: bool,
    /// Whether the player takes part in the next round's pairing.
    pub present: bool,
}

impl Player {
    /// A colour imbalance of two or more.
    #[must_use]
    pub fn absolute_imbalance(&self) -> bool {
        self.color_imbalance > 1
    }

    /// An absolute colour preference: imbalance of two, or the same colour twice in a row.
    #[must_use]
    pub fn absolute_preference(&self) -> bool {
        self.absolute_imbalance() || self.repeated_color.is_some()
    }
}

/// A Swiss tournament before the pairing of its next round.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tournament {
    /// The players by start rank.
    pub players: Vec<Player>,
    /// Rounds played so far.
    pub played_rounds: usize,
    /// Rounds planned in all.
    pub planned_rounds: usize,
    /// The points awarded.
    pub points: PointSystem,
    /// The colour of the top seed in round 1.
    pub initial_color: Color,
}

impl Tournament {
    /// The points `player` earned in round `round`.
    #[must_use]
    pub fn points_of(&self, player: &Player, round: &Round) -> u32 {
        self.points.points(player.id, round)
    }

    /// The score of `player` `rounds_back` rounds ago.
    #[must_use]
    pub fn score_before(&self, player: &Player, rounds_back: usize) -> u32 {
        let start = self.played_rounds - rounds_back;
        player.rounds[start..self.played_rounds]
            .iter()
            .fold(player.score, |score, round| {
                score - self.points_of(player, round)
            })
    }

    /// Whether `player` may get the pairing-allocated bye: not after a bye, a forfeit win or
    /// any round scored as a win without playing.
    #[must_use]
    pub fn eligible_for_bye(&self, player: &Player) -> bool {
        player.rounds.iter().all(|round| {
            round.played
                || (self.points_of(player, round) < self.points.win
                    && !round.is_pairing_bye(player.id))
        })
    }

    /// Fills in the derived data of every player: score, played games and colour preference.
    pub(crate) fn derive(&mut self) {
        let played_rounds = self.played_rounds;
        let points = self.points;
        let mut rank = 0;
        for player in &mut self.players {
            player.valid = player.rounds.len() <= played_rounds
                || player.rounds.iter().any(|round| round.paired);
            player.present = player.valid && player.rounds.len() <= played_rounds;
            player.rank = rank;
            rank += usize::from(player.valid);
            player.score = player.rounds[..played_rounds]
                .iter()
                .map(|round| points.points(player.id, round))
                .sum();
            let (mut white, mut black, mut streak) = (0usize, 0usize, 0usize);
            let mut last = None;
            for round in player.rounds.iter().filter(|round| round.played) {
                let Some(color) = round.color else { continue };
                match color {
                    Color::White => white += 1,
                    Color::Black => black += 1,
                }
                streak = if last == Some(color) { streak + 1 } else { 1 };
                last = Some(color);
            }
            player.played_games = white + black;
            let lower = if white > black {
                Color::Black
            } else {
                Color::White
            };
            player.color_imbalance = white.abs_diff(black);
            player.color_preference = if player.color_imbalance > 1 {
                Some(lower)
            } else if streak > 1 {
                last.map(Color::invert)
            } else if player.color_imbalance > 0 {
                Some(lower)
            } else {
                last.map(Color::invert)
            };
            player.repeated_color = if streak > 1 { last } else { None };
            player.strong_preference = !player.absolute_preference() && player.color_imbalance > 0;
        }
    }
}
