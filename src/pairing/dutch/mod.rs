//! The FIDE Dutch system (C.04.3, 2025 rules), as bbpPairings implements it: the pairing of a
//! round is a maximum-weight matching on all players, where each edge weight packs the
//! criteria in order of priority into bit fields (absolute criteria and the completion
//! requirement highest, then pairs and scores in the current bracket, the bye, colours,
//! floats, and finally the order among transpositions and exchanges). Brackets are settled
//! from the top score down; each settled pair is fixed in the graph before the next bracket.

mod colors;
mod weights;

use super::matching::Graph;
use super::tournament::{Color, Player, Tournament};
use super::wide::Wide;
use super::{Pair, PairingError};
use colors::choose_color;
use weights::{Bye, Context};

/// Pairs the next round, choosing the narrowest weight width (in 64-bit words) that holds
/// every criterion.
pub(crate) fn pair(tournament: &Tournament) -> Result<Vec<Pair>, PairingError> {
    let context = Context::new(tournament)?;
    // Twice the largest weight, plus the doubling and dual sums of the matching.
    let needed = context.weight_bits() + 6;
    match needed {
        0..=128 => Pairing::<2>::new(context).run(),
        129..=192 => Pairing::<3>::new(context).run(),
        193..=256 => Pairing::<4>::new(context).run(),
        257..=320 => Pairing::<5>::new(context).run(),
        321..=384 => Pairing::<6>::new(context).run(),
        385..=448 => Pairing::<7>::new(context).run(),
        449..=512 => Pairing::<8>::new(context).run(),
        513..=1024 => Pairing::<16>::new(context).run(),
        1025..=2048 => Pairing::<32>::new(context).run(),
        2049..=4096 => Pairing::<64>::new(context).run(),
        _ => Err(PairingError::TooLarge),
    }
}

/// One pairing run with weights of `N` words.
#[derive(Debug)]
struct Pairing<'a, const N: usize> {
    context: Context<'a>,
    graph: Graph<Wide<N>>,
    max_weight: Wide<N>,
}

impl<'a, const N: usize> Pairing<'a, N> {
    fn new(context: Context<'a>) -> Self {
        let max_weight = Wide::ones(context.weight_bits());
        let graph = Graph::new(context.sorted.len());
        Self {
            context,
            graph,
            max_weight,
        }
    }

    fn player(&self, vertex: usize) -> &'a Player {
        self.context.sorted[vertex]
    }
}

impl<const N: usize> Pairing<'_, N> {
    /// Fixes `a`–`b`: their edge at the largest weight, every other edge of theirs removed.
    fn fix_pair(&mut self, a: usize, b: usize) {
        for other in 0..self.graph.len() {
            if other != a {
                let weight = if other == b {
                    self.max_weight
                } else {
                    Wide::ZERO
                };
                self.graph.set(a, other, weight);
            }
            if other != b {
                let weight = if other == a {
                    self.max_weight
                } else {
                    Wide::ZERO
                };
                self.graph.set(b, other, weight);
            }
        }
    }

    /// Pairs `vertex` with the best of `offers` (opponent, base weight, a preference added to
    /// it), and fixes that pair; returns the new matching.
    fn settle(&mut self, vertex: usize, offers: &[(usize, Wide<N>, u64)]) -> Vec<usize> {
        for &(opponent, weight, preference) in offers {
            if !weight.is_zero() {
                self.graph
                    .set(vertex, opponent, weight.add(Wide::from_u64(preference)));
            }
        }
        let stable = self.graph.maximum_matching();
        self.fix_pair(vertex, stable[vertex]);
        stable
    }

    /// The weights that find whether all players can be paired, and which score the bye
    /// goes to.
    fn completion_weights(&mut self) {
        let sorted = &self.context.sorted;
        let (size, groups) = (self.context.size_bits, self.context.groups_bits);
        let top = sorted[0].score;
        for p in 0..sorted.len() {
            for o in 0..p {
                let (player, opponent) = (sorted[p], sorted[o]);
                let weight = if sorted.len().is_multiple_of(2) {
                    self.edge_weight(opponent, player, false, false, &Bye::default())
                } else if self.context.compatible(player, opponent) {
                    let ineligible = u64::from(!self.context.eligible_for_bye(player))
                        + u64::from(!self.context.eligible_for_bye(opponent));
                    Wide::from_u64(1 + ineligible)
                        .shl(groups)
                        .add(Wide::from_u64(u64::from(
                            self.context.shift(player) + self.context.shift(opponent),
                        )))
                        .shl(size)
                        .add(Wide::from_u64(u64::from(player.score >= top)))
                } else {
                    Wide::ZERO
                };
                self.graph.set(p, o, weight);
            }
        }
    }

    /// Every player is paired but at most one, who may have the bye.
    fn is_complete(&self, matching: &[usize]) -> bool {
        let unmatched: Vec<usize> = (0..matching.len())
            .filter(|&vertex| matching[vertex] == vertex)
            .collect();
        unmatched.len() <= 1
            && unmatched
                .iter()
                .all(|&vertex| self.context.eligible_for_bye(self.player(vertex)))
    }

    /// Works out who can get the bye, and sets the weights of the whole graph with it.
    fn plan_bye(&mut self, matching: &[usize]) -> Bye {
        let mut bye = Bye::default();
        let sorted = &self.context.sorted;
        if sorted.len().is_multiple_of(2) {
            return bye;
        }
        let assignee = (0..sorted.len())
            .find(|&vertex| matching[vertex] == vertex)
            .expect("an odd number of players leaves one unpaired");
        bye.score = sorted[assignee].score;
        let top = sorted[0].score;
        bye.single_downfloater = bye.score >= top
            && (0..sorted.len())
                .take_while(|&vertex| sorted[vertex].score >= top)
                .all(|vertex| sorted[matching[vertex]].score >= top);
        let mut played: Vec<usize> = sorted
            .iter()
            .filter(|player| player.score == bye.score)
            .map(|player| player.played_games)
            .collect();
        played.sort_unstable_by(|a, b| b.cmp(a));
        for (rank, games) in played.into_iter().enumerate() {
            bye.unplayed_ranks.insert(games, rank as u64);
        }
        for p in 0..sorted.len() {
            for o in 0..p {
                let weight = self.edge_weight(sorted[o], sorted[p], false, false, &bye);
                self.graph.set(p, o, weight);
            }
        }
        bye
    }

    fn run(mut self) -> Result<Vec<Pair>, PairingError> {
        let count = self.context.sorted.len();
        self.completion_weights();
        let mut stable = self.graph.maximum_matching();
        if !self.is_complete(&stable) {
            return Err(PairingError::NoValidPairing);
        }
        let mut bye = self.plan_bye(&stable);
        let sorted = self.context.sorted.clone();
        let score = |vertex: usize| sorted[vertex].score;
        let top = score(0);

        let mut mate_of: Vec<Option<usize>> = vec![None; count];
        // The current bracket and the next score group, as vertices.
        let mut bracket: Vec<usize> = (0..count).take_while(|&v| score(v) >= top).collect();
        let mut next_group = bracket.len();
        let mut matched = vec![false; count];
        // The number of players moved down into the current bracket (they come first).
        let mut moved_down = 0;
        // The first vertex of the current bracket's own score group.
        let mut group_vertex = 0;

        while bracket.len() > 1 || next_group < count {
            let next_begin = bracket.len();
            let next_vertex = group_vertex + (next_begin - moved_down);
            let group_start = next_group;
            while next_group < count && score(next_group) >= score(group_start) {
                bracket.push(next_group);
                next_group += 1;
            }
            let resident = |vertex: usize| vertex >= group_vertex && vertex < next_vertex;

            let mut base: Vec<Vec<Wide<N>>> = vec![Vec::new(); bracket.len()];
            for larger in moved_down..bracket.len() {
                for smaller in 0..larger {
                    base[larger].push(self.edge_weight(
                        self.player(bracket[smaller]),
                        self.player(bracket[larger]),
                        larger < next_begin,
                        larger >= next_begin,
                        &bye,
                    ));
                }
            }
            for (larger, weights) in base.iter().enumerate() {
                for (smaller, &weight) in weights.iter().enumerate() {
                    self.graph.set(bracket[larger], bracket[smaller], weight);
                }
            }
            let size_bits = self.context.size_bits;
            // The base weight with the preferences among exchanges: as few as possible, then
            // the smallest differences of pairing numbers.
            let ordered = |base: &[Vec<Wide<N>>],
                           smaller: usize,
                           larger: usize,
                           smaller_index: usize,
                           pairs: usize| {
                let weight = base[larger][smaller];
                if weight.is_zero() {
                    return weight;
                }
                let addend = Wide::<N>::from_u64(u64::from(smaller_index < pairs))
                    .shl(2 * size_bits)
                    .sub(Wide::from_u64(smaller_index as u64))
                    .shl(1);
                weight.add(addend)
            };

            stable = self.graph.maximum_matching();

            // Which moved-down players are paired in this bracket.
            let mut level = 0;
            let mut level_left = 0;
            let mut level_paired = 0;
            for p in 0..moved_down {
                if p == 0 || score(bracket[p]) < level {
                    level = score(bracket[p]);
                    level_left = 0;
                    level_paired = 0;
                    for &vertex in bracket[p..].iter().take_while(|&&v| score(v) >= level) {
                        level_left += 1;
                        if resident(stable[vertex]) {
                            level_paired += 1;
                        }
                    }
                }
                if level_paired == 0 {
                    continue;
                }
                let vertex = bracket[p];
                if level_left <= level_paired {
                    matched[vertex] = true;
                    continue;
                }
                level_left -= 1;
                if !resident(stable[vertex]) {
                    for o in moved_down..next_begin {
                        let weight = base[o][p];
                        if !weight.is_zero() {
                            self.graph
                                .set(vertex, bracket[o], weight.or(Wide::from_u64(1)));
                        }
                    }
                    stable = self.graph.maximum_matching();
                }
                if resident(stable[vertex]) {
                    matched[vertex] = true;
                    level_paired -= 1;
                    for o in moved_down..next_begin {
                        let weight = base[o][p];
                        if !weight.is_zero() {
                            let weight = weight
                                .or(Wide::from_u64((next_begin - moved_down) as u64))
                                .add(Wide::from_u64(1));
                            self.graph.set(vertex, bracket[o], weight);
                        }
                    }
                }
            }

            // Their opponents, the highest possible first.
            for p in 0..moved_down {
                let vertex = bracket[p];
                if !matched[vertex] {
                    continue;
                }
                // The offers rank among the edges there are.
                let offers = (moved_down..next_begin)
                    .rev()
                    .filter(|&o| !matched[bracket[o]] && !base[o][p].is_zero())
                    .map(|o| (bracket[o], base[o][p]));
                let offers: Vec<_> = offers
                    .zip(bracket.len() as u64..)
                    .map(|((opponent, weight), rank)| (opponent, weight, rank))
                    .collect();
                stable = self.settle(vertex, &offers);
                matched[stable[vertex]] = true;
            }

            // The remainder: S1 (paired with a lower player) before S2.
            let mut remainder = Vec::new();
            let mut pairs = 0;
            for (p, &vertex) in bracket.iter().enumerate().take(next_begin).skip(moved_down) {
                if stable[vertex] < group_vertex {
                    continue;
                }
                remainder.push(p);
                if stable[vertex] < vertex {
                    pairs += 1;
                }
            }
            for (oi, &o) in remainder.iter().enumerate() {
                for (pi, &p) in remainder[..oi].iter().enumerate() {
                    let weight = ordered(&base, p, o, pi, pairs);
                    self.graph.set(bracket[p], bracket[o], weight);
                }
            }
            stable = self.graph.maximum_matching();
            let in_s1 = |stable: &[usize], vertex: usize| {
                stable[vertex] > vertex && stable[vertex] < next_vertex
            };
            let exchanges = match remainder.get(pairs) {
                Some(&first_lower) => remainder
                    .iter()
                    .take_while(|&&p| p < first_lower)
                    .filter(|&&p| !in_s1(&stable, bracket[p]))
                    .count(),
                None => 0,
            };

            // Exchange the lowest players of S1 possible.
            let mut left = exchanges;
            let mut it = pairs;
            while it > 0 && left > 0 {
                it -= 1;
                let index = it;
                let vertex = bracket[remainder[it]];
                if in_s1(&stable, vertex) {
                    for &o in &remainder[it + 1..] {
                        let weight = ordered(&base, remainder[it], o, index, pairs);
                        if !weight.is_zero() {
                            self.graph
                                .set(vertex, bracket[o], weight.sub(Wide::from_u64(1)));
                        }
                    }
                    stable = self.graph.maximum_matching();
                }
                let exchange = !in_s1(&stable, vertex);
                left -= usize::from(exchange);
                for &o in &remainder[it + 1..] {
                    if exchange {
                        base[o][remainder[it]] = Wide::ZERO;
                    }
                    let weight = ordered(&base, remainder[it], o, index, pairs);
                    self.graph.set(vertex, bracket[o], weight);
                }
            }

            // Exchange the highest players of S2 possible.
            let mut left = exchanges;
            for it in pairs..remainder.len() {
                if left <= 1 {
                    break;
                }
                let p = remainder[it];
                let vertex = bracket[p];
                let already = in_s1(&stable, vertex);
                if !already {
                    for &o in &remainder[it + 1..] {
                        let weight = ordered(&base, p, o, it, pairs);
                        if !weight.is_zero() {
                            self.graph
                                .set(vertex, bracket[o], weight.add(Wide::from_u64(1)));
                        }
                    }
                    stable = self.graph.maximum_matching();
                }
                if in_s1(&stable, vertex) {
                    left -= 1;
                    for &o in &remainder[..it] {
                        base[p][o] = Wide::ZERO;
                        self.graph.set(vertex, bracket[o], Wide::ZERO);
                    }
                    for o in next_begin..bracket.len() {
                        base[o][p] = Wide::ZERO;
                        self.graph.set(vertex, bracket[o], Wide::ZERO);
                    }
                }
                if !already {
                    for &o in &remainder[it + 1..] {
                        let weight = ordered(&base, p, o, it, pairs);
                        self.graph.set(vertex, bracket[o], weight);
                    }
                }
            }

            // Settle who is in S1, and clear the exchange preferences.
            for (it, &p) in remainder.iter().enumerate() {
                let vertex = bracket[p];
                for &o in &remainder[it + 1..] {
                    let opponent = bracket[o];
                    if !in_s1(&stable, vertex) || in_s1(&stable, opponent) {
                        base[o][p] = Wide::ZERO;
                    }
                    self.graph.set(vertex, opponent, base[o][p]);
                }
            }

            // The opponent of each S1 player, the highest possible first.
            for &p in &remainder {
                let vertex = bracket[p];
                if !in_s1(&stable, vertex) {
                    continue;
                }
                // The offers rank among all the players still free below.
                let offers: Vec<_> = remainder
                    .iter()
                    .rev()
                    .filter(|&&o| o > p && !matched[bracket[o]])
                    .zip(0..)
                    .map(|(&o, rank)| (bracket[o], base[o][p], rank))
                    .collect();
                stable = self.settle(vertex, &offers);
                matched[vertex] = true;
                matched[stable[vertex]] = true;
            }

            // The next bracket: the unpaired players move down.
            let mut next_bracket = Vec::new();
            moved_down = 0;
            bye.single_downfloater =
                count % 2 == 1 && group_start != count && bye.score >= score(group_start);
            for (p, &vertex) in bracket.iter().enumerate() {
                if p < next_begin && matched[vertex] {
                    mate_of[vertex] = Some(stable[vertex]);
                    mate_of[stable[vertex]] = Some(vertex);
                } else {
                    next_bracket.push(vertex);
                    if p < next_begin {
                        moved_down += 1;
                    }
                    if bye.single_downfloater && score(stable[vertex]) < score(group_start) {
                        bye.single_downfloater = false;
                    }
                }
            }
            bracket = next_bracket;
            group_vertex = next_vertex;
        }

        let tournament = self.context.tournament;
        let mut result = Vec::new();
        for (vertex, mate) in mate_of.iter().enumerate() {
            let player = self.player(vertex);
            match mate {
                Some(mate) => {
                    let opponent = self.player(*mate);
                    if player.id < opponent.id {
                        let color = choose_color(tournament, player, opponent);
                        result.push(if color == Color::White {
                            Pair::game(player.id, opponent.id)
                        } else {
                            Pair::game(opponent.id, player.id)
                        });
                    }
                }
                None => result.push(Pair::bye(player.id)),
            }
        }
        Ok(result)
    }
}
