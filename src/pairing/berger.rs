//! Round robins by the FIDE Berger tables (C.05 Annex 1).
//!
//! With `n` players (one more, a bye, when `n` is odd) there are `n - 1` rounds. Player `n`
//! stays put; in round `r` they meet `x = (r - 1)·n/2 mod (n - 1) + 1`, with Black in odd
//! rounds and White in even ones, and on the other boards `x + k` has White against `x - k`
//! (counted round `1..n-1`). A double round robin plays the table twice, the second time
//! with colours reversed.

use super::Pair;

/// The rounds of a round robin among `players` players (start ranks `0..players`): each round
/// the games in board order, then the bye when the number of players is odd. With `double`,
/// the second cycle follows with colours reversed.
#[must_use]
pub fn schedule(players: usize, double: bool) -> Vec<Vec<Pair>> {
    let n = players + players % 2;
    let mut rounds = Vec::new();
    if players < 2 {
        return rounds;
    }
    let rotating = n - 1;
    // 1-based players of the table; `n` is the bye when `players` is odd.
    let wrap = |value: usize| (value + rotating - 1) % rotating + 1;
    for round in 1..n {
        let x = (round - 1) * (n / 2) % rotating + 1;
        let mut boards = Vec::with_capacity(n / 2);
        boards.push(if round % 2 == 1 { (x, n) } else { (n, x) });
        for k in 1..n / 2 {
            boards.push((wrap(x + k), wrap(x + rotating - k)));
        }
        let mut pairs = Vec::with_capacity(n / 2);
        let mut bye = None;
        for (white, black) in boards {
            if players % 2 == 1 && (white == n || black == n) {
                bye = Some(Pair::bye(if white == n { black } else { white } - 1));
            } else {
                pairs.push(Pair::game(white - 1, black - 1));
            }
        }
        pairs.extend(bye);
        rounds.push(pairs);
    }
    if double {
        let reversed: Vec<Vec<Pair>> = rounds
            .iter()
            .map(|round| {
                round
                    .iter()
                    .map(|pair| match pair.black {
                        Some(black) => Pair::game(black, pair.white),
                        None => *pair,
                    })
                    .collect()
            })
            .collect();
        rounds.extend(reversed);
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::schedule;
    use crate::pairing::Pair;

    /// A table as FIDE prints it: `white-black` by 1-based number, boards separated by spaces.
    fn table(rounds: &[&str]) -> Vec<Vec<Pair>> {
        rounds
            .iter()
            .map(|round| {
                round
                    .split_whitespace()
                    .map(|board| {
                        let (white, black) = board.split_once('-').expect("white-black");
                        let number = |text: &str| text.parse::<usize>().expect("a number") - 1;
                        Pair::game(number(white), number(black))
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn four_six_and_eight_players_follow_the_fide_tables() {
        assert_eq!(
            schedule(4, false),
            table(&["1-4 2-3", "4-3 1-2", "2-4 3-1"])
        );
        assert_eq!(
            schedule(6, false),
            table(&[
                "1-6 2-5 3-4",
                "6-4 5-3 1-2",
                "2-6 3-1 4-5",
                "6-5 1-4 2-3",
                "3-6 4-2 5-1",
            ])
        );
        assert_eq!(
            schedule(8, false),
            table(&[
                "1-8 2-7 3-6 4-5",
                "8-5 6-4 7-3 1-2",
                "2-8 3-1 4-7 5-6",
                "8-6 7-5 1-4 2-3",
                "3-8 4-2 5-1 6-7",
                "8-7 1-6 2-5 3-4",
                "4-8 5-3 6-2 7-1",
            ])
        );
    }

    #[test]
    fn ten_players_follow_the_fide_table() {
        assert_eq!(
            schedule(10, false),
            table(&[
                "1-10 2-9 3-8 4-7 5-6",
                "10-6 7-5 8-4 9-3 1-2",
                "2-10 3-1 4-9 5-8 6-7",
                "10-7 8-6 9-5 1-4 2-3",
                "3-10 4-2 5-1 6-9 7-8",
                "10-8 9-7 1-6 2-5 3-4",
                "4-10 5-3 6-2 7-1 8-9",
                "10-9 1-8 2-7 3-6 4-5",
                "5-10 6-4 7-3 8-2 9-1",
            ])
        );
    }

    #[test]
    fn an_odd_number_of_players_uses_the_next_table_with_a_bye() {
        let rounds = schedule(5, false);
        assert_eq!(rounds.len(), 5);
        assert_eq!(
            rounds[0],
            vec![Pair::game(1, 4), Pair::game(2, 3), Pair::bye(0)]
        );
        assert_eq!(
            rounds[1],
            vec![Pair::game(4, 2), Pair::game(0, 1), Pair::bye(3)]
        );
        let byes: Vec<usize> = rounds
            .iter()
            .map(|round| {
                round
                    .iter()
                    .find(|pair| pair.black.is_none())
                    .expect("a bye")
                    .white
            })
            .collect();
        assert_eq!(byes, [0, 3, 1, 4, 2]);
        assert_eq!(
            schedule(3, false),
            vec![
                vec![Pair::game(1, 2), Pair::bye(0)],
                vec![Pair::game(0, 1), Pair::bye(2)],
                vec![Pair::game(2, 0), Pair::bye(1)],
            ]
        );
    }

    #[test]
    fn everyone_meets_everyone_once_with_balanced_colours() {
        for players in 2..=21 {
            let rounds = schedule(players, false);
            assert_eq!(rounds.len(), players - 1 + players % 2);
            let mut met = vec![vec![0; players]; players];
            let mut whites = vec![0i32; players];
            for round in &rounds {
                let mut seen = vec![false; players];
                for pair in round {
                    for player in [Some(pair.white), pair.black].into_iter().flatten() {
                        assert!(
                            !seen[player],
                            "{players} players: {player} twice in a round"
                        );
                        seen[player] = true;
                    }
                    if let Some(black) = pair.black {
                        met[pair.white][black] += 1;
                        met[black][pair.white] += 1;
                        whites[pair.white] += 1;
                        whites[black] -= 1;
                    }
                }
                assert!(
                    seen.iter().all(|&seen| seen),
                    "{players} players: someone left out"
                );
            }
            for a in 0..players {
                for (b, &count) in met[a].iter().enumerate() {
                    assert_eq!(count, usize::from(a != b), "{players}: {a} and {b}");
                }
                assert!(
                    whites[a].abs() <= 1,
                    "{players} players: {a} has {} whites",
                    whites[a]
                );
            }
        }
    }

    #[test]
    fn the_second_cycle_reverses_the_colours() {
        let rounds = schedule(6, true);
        assert_eq!(rounds.len(), 10);
        assert_eq!(rounds[5], table(&["6-1 5-2 4-3"])[0]);
        assert_eq!(&rounds[..5], schedule(6, false).as_slice());
        assert!(schedule(1, true).is_empty() && schedule(0, false).is_empty());
        assert_eq!(
            schedule(2, true),
            vec![vec![Pair::game(0, 1)], vec![Pair::game(1, 0)]]
        );
    }
}
