//! The edge weights of the Dutch system: every criterion of C.04.3 in its own bit field, the
//! most important highest.

use std::collections::HashMap;

use super::Pairing;
use super::colors::preferences_compatible;
use crate::pairing::PairingError;
use crate::pairing::tournament::{Color, Player, Tournament};
use crate::pairing::wide::Wide;

/// The direction a player floated in some earlier round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Float {
    Down,
    Up,
    None,
}

/// The number of bits needed to write `value`.
pub(super) fn bits(value: usize) -> u32 {
    usize::BITS - value.leading_zeros()
}

/// What the weights are built from: the players to pair in order, and the bit layout.
#[derive(Debug)]
pub(super) struct Context<'a> {
    pub(super) tournament: &'a Tournament,
    /// The players to pair, by score (highest first), then pairing number.
    pub(super) sorted: Vec<&'a Player>,
    /// Pairs of player ids that already played each other.
    pub(super) forbidden: Vec<Vec<bool>>,
    /// Per score, the position of its field in the score-group parts of a weight.
    pub(super) group_shift: HashMap<u32, u32>,
    /// The width of the score-group parts of a weight.
    pub(super) groups_bits: u32,
    /// The width of a field counting players of one score group.
    pub(super) size_bits: u32,
}

impl<'a> Context<'a> {
    pub(super) fn new(tournament: &'a Tournament) -> Result<Self, PairingError> {
        let mut sorted: Vec<&Player> = tournament
            .players
            .iter()
            .filter(|player| player.present)
            .collect();
        if sorted.is_empty() {
            return Err(PairingError::NoPlayers);
        }
        sorted.sort_by(|a, b| b.score.cmp(&a.score).then(a.rank.cmp(&b.rank)));
        let count = tournament.players.len();
        let mut forbidden = vec![vec![false; count]; count];
        for player in tournament.players.iter().filter(|player| player.valid) {
            for round in player.rounds.iter().filter(|round| round.played) {
                forbidden[player.id][round.opponent] = true;
            }
        }
        let mut group_shift = HashMap::new();
        let mut groups_bits = 0;
        let mut largest = 0;
        let mut index = sorted.len();
        while index > 0 {
            let score = sorted[index - 1].score;
            let size = sorted[..index]
                .iter()
                .rev()
                .take_while(|player| player.score == score)
                .count();
            group_shift.insert(score, groups_bits);
            groups_bits += bits(size);
            largest = largest.max(size);
            index -= size;
        }
        Ok(Self {
            tournament,
            sorted,
            forbidden,
            group_shift,
            groups_bits,
            size_bits: bits(largest),
        })
    }

    /// The width of the largest weight (a fixed pair's weight).
    pub(super) fn weight_bits(&self) -> u32 {
        let (size, groups) = (self.size_bits, self.groups_bits);
        let mut shifts = 11 * size + 2 * groups + 1;
        if self.tournament.played_rounds > 0 {
            shifts += 2 * size + 2 * groups;
        }
        if self.tournament.played_rounds > 1 {
            shifts += 2 * size + 2 * groups;
        }
        shifts + 2
    }

    /// Whether two players may meet: not again, and not two players with the same absolute
    /// colour preference (unless one of them is a topscorer in the last round).
    pub(super) fn compatible(&self, a: &Player, b: &Player) -> bool {
        let tournament = self.tournament;
        let points = &tournament.points;
        let top = (tournament.played_rounds as u32 * points.win.max(points.draw)) / 2;
        !self.forbidden[a.id][b.id]
            && (!a.absolute_preference()
                || !b.absolute_preference()
                || a.color_preference != b.color_preference
                || (tournament.played_rounds + 1 >= tournament.planned_rounds
                    && (a.score > top || b.score > top)))
    }

    pub(super) fn eligible_for_bye(&self, player: &Player) -> bool {
        self.tournament.eligible_for_bye(player)
    }

    fn float(&self, player: &Player, rounds_back: usize) -> Float {
        let tournament = self.tournament;
        let round = &player.rounds[tournament.played_rounds - rounds_back];
        if !round.played {
            return if tournament.points_of(player, round) > tournament.points.loss {
                Float::Down
            } else {
                Float::None
            };
        }
        let own = tournament.score_before(player, rounds_back);
        let theirs = tournament.score_before(&tournament.players[round.opponent], rounds_back);
        match own.cmp(&theirs) {
            std::cmp::Ordering::Greater => Float::Down,
            std::cmp::Ordering::Less => Float::Up,
            std::cmp::Ordering::Equal => Float::None,
        }
    }

    pub(super) fn shift(&self, player: &Player) -> u32 {
        self.group_shift[&player.score]
    }
}

/// What the bye decides for the weights of a bracket.
#[derive(Debug, Clone, Default)]
pub(super) struct Bye {
    /// The score of the player who will get the pairing-allocated bye.
    pub(super) score: u32,
    /// Whether the bye goes to the one player floating down from the current bracket, so
    /// that players with fewer unplayed games are preferred for it.
    pub(super) single_downfloater: bool,
    /// Per number of played games, the rank used to prefer players for the bye.
    pub(super) unplayed_ranks: HashMap<usize, u64>,
}

impl<const N: usize> Pairing<'_, N> {
    fn is_bye_candidate(&self, player: &Player, bye: &Bye) -> bool {
        self.context.eligible_for_bye(player) && player.score <= bye.score
    }

    /// The weight of `higher`–`lower` before the ordering of transpositions and exchanges.
    pub(super) fn edge_weight(
        &self,
        higher: &Player,
        lower: &Player,
        in_current: bool,
        in_next: bool,
        bye: &Bye,
    ) -> Wide<N> {
        let context = &self.context;
        if !context.compatible(higher, lower) {
            return Wide::ZERO;
        }
        let (size, groups) = (context.size_bits, context.groups_bits);
        let played_rounds = context.tournament.played_rounds;
        let flag = |condition: bool| Wide::<N>::from_u64(u64::from(condition));
        let group_bit = |player: &Player| Wide::<N>::bit(context.shift(player));
        // Each step opens a field below the ones before and adds its value into it.
        let mut weight = Wide::from_u64(
            1 + u64::from(!self.is_bye_candidate(higher, bye))
                + u64::from(!self.is_bye_candidate(lower, bye)),
        );
        let mut push = |shift: u32, value: Wide<N>| weight = weight.shl(shift).add(value);

        // Pairs, then paired scores, in the current bracket, then in the next.
        push(size, flag(in_current));
        push(
            groups,
            if in_current {
                group_bit(higher)
            } else {
                Wide::ZERO
            },
        );
        push(size, flag(in_next));
        push(
            groups,
            if in_next {
                group_bit(higher)
            } else {
                Wide::ZERO
            },
        );

        // The bye to a player with as few unplayed games as possible.
        let mut unplayed = 0;
        if bye.single_downfloater {
            for player in [higher, lower] {
                if player.score == bye.score {
                    unplayed += bye.unplayed_ranks[&player.played_games];
                }
            }
        }
        push(2 * size, Wide::from_u64(unplayed));

        // Colour preferences.
        let (a, b) = (lower, higher);
        let colors = in_current;
        push(
            size,
            flag(
                colors
                    && (!a.absolute_imbalance()
                        || !b.absolute_imbalance()
                        || a.color_preference != b.color_preference),
            ),
        );
        let repeated_ok = if a.color_imbalance == b.color_imbalance {
            a.repeated_color.is_none() || a.repeated_color != b.repeated_color
        } else {
            let stronger = if a.color_imbalance > b.color_imbalance {
                b
            } else {
                a
            };
            stronger.repeated_color != a.color_preference.map(Color::invert)
        };
        push(
            size,
            flag(
                colors
                    && (!a.absolute_preference()
                        || !b.absolute_preference()
                        || a.color_preference != b.color_preference
                        || repeated_ok),
            ),
        );
        push(
            size,
            flag(colors && preferences_compatible(a.color_preference, b.color_preference)),
        );
        push(
            size,
            flag(
                colors
                    && ((!a.strong_preference && !a.absolute_preference())
                        || (!b.strong_preference && !b.absolute_preference())
                        || (a.absolute_preference() && b.absolute_preference())
                        || a.color_preference != b.color_preference),
            ),
        );

        // Repeated floats, one and two rounds back: how many, then the scores involved.
        let higher_score_above = higher.score > lower.score;
        for rounds_back in [1, 2] {
            if played_rounds < rounds_back {
                continue;
            }
            let mut value = 0;
            if in_current {
                value = u64::from(context.float(lower, rounds_back) == Float::Down)
                    + u64::from(
                        !higher_score_above && context.float(higher, rounds_back) == Float::Down,
                    );
            }
            push(size, Wide::from_u64(value));
            push(
                size,
                flag(
                    in_current
                        && !(higher_score_above && context.float(lower, rounds_back) == Float::Up),
                ),
            );
        }
        for rounds_back in [1, 2] {
            if played_rounds < rounds_back {
                continue;
            }
            let mut value = Wide::ZERO;
            if in_current {
                if context.float(lower, rounds_back) == Float::Down {
                    value = value.add(group_bit(lower));
                }
                if context.float(higher, rounds_back) == Float::Down {
                    value = value.add(group_bit(higher));
                }
            }
            push(groups, value);
            let upfloater_opponent = in_current
                && !(context.float(lower, rounds_back) == Float::Up && higher_score_above);
            push(
                groups,
                if upfloater_opponent {
                    group_bit(higher)
                } else {
                    Wide::ZERO
                },
            );
        }

        // Room for the order of transpositions and exchanges.
        push(3 * size + 1, Wide::ZERO);
        weight
    }
}
