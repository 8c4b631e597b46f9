//! The built-in opponent: it plays only legal moves, finds mates in one, keeps to its budget,
//! and (ignored, long) beats a random mover at level 3 in every game.

use std::time::{Duration, Instant};

use pigeon::engine::{self, Level, Limits};
use pigeon::rules::{Color, Record, Variant, VariantMove, VariantPosition};

/// A game still running after this many plies counts as a draw.
const MAX_PLIES: usize = 400;

/// A random legal move.
fn random_move(position: &VariantPosition, rng: &mut fastrand::Rng) -> VariantMove {
    let moves = position.legal_moves();
    moves[rng.usize(..moves.len())].clone()
}

/// Plays `mv`, asserting that it is one of the legal moves.
fn play(record: &mut Record, mv: &VariantMove) {
    let position = record.position();
    assert!(
        position.legal_moves().contains(mv),
        "{} is not a legal move in {}",
        position.move_text(mv),
        position.to_text()
    );
    let text = position.move_text(mv);
    record.play(&text).expect("a legal move plays");
}

/// One game of the engine (playing `engine_side`) against a random mover: the engine's score
/// (1, 1/2 or 0) and the number of plies.
fn engine_vs_random(variant: Variant, level: Level, engine_side: Color, seed: u64) -> (f64, usize) {
    let mut record = Record::new(VariantPosition::start(variant));
    let mut rng = fastrand::Rng::with_seed(seed);
    while record.outcome().is_none() && record.moves().len() < MAX_PLIES {
        let mv = if record.position().turn() == engine_side {
            let seed = rng.u64(..);
            engine::choose(&record, level, seed)
                .expect("the engine moves while the game goes on")
                .mv
        } else {
            random_move(record.position(), &mut rng)
        };
        play(&mut record, &mv);
    }
    let score = match record.outcome().and_then(|outcome| outcome.winner) {
        _ if record.outcome().is_none() => 0.5,
        Some(winner) if winner == engine_side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    };
    (score, record.moves().len())
}

/// 100 seeded games at level 3 against a random mover, colours alternating: at least 90 %.
fn level_three_beats_random(variant: Variant) {
    let games: u64 = 100;
    let started = Instant::now();
    let mut total = 0.0;
    let mut plies = 0;
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for game in 0..games {
        let side = if game.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        };
        let (score, length) = engine_vs_random(variant, Level::DEFAULT, side, 1000 + game);
        total += score;
        plies += length;
        match score {
            1.0 => wins += 1,
            0.0 => losses += 1,
            _ => draws += 1,
        }
    }
    let percent = 100.0 * total / games as f64;
    println!(
        "{variant}: level 3 against a random mover: {percent:.1} % ({wins} wins, {draws} draws, \
         {losses} losses) in {games} games, {plies} plies, {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(percent >= 90.0, "{variant}: {percent:.1} %");
}

#[test]
#[ignore = "100 games per game; run in release"]
fn level_three_beats_random_chak() {
    level_three_beats_random(Variant::Chak);
}

#[test]
#[ignore = "100 games per game; run in release"]
fn level_three_beats_random_shakti() {
    level_three_beats_random(Variant::Shakti);
}

#[test]
#[ignore = "100 games per game; run in release"]
fn level_three_beats_random_chad() {
    level_three_beats_random(Variant::Chad);
}

#[test]
#[ignore = "100 games per game; run in release"]
fn level_three_beats_random_chesscala() {
    level_three_beats_random(Variant::Chesscala);
}

/// Positions reached by random games in which the side to move can win at once, with the
/// record that leads to each.
fn mates_in_one(variant: Variant, wanted: usize) -> Vec<Record> {
    let mut found = Vec::new();
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..2_000 {
        let mut record = Record::new(VariantPosition::start(variant));
        while record.outcome().is_none() && record.moves().len() < 300 {
            let position = record.position();
            let mover = position.turn();
            let mates = position.legal_moves().into_iter().any(|mv| {
                position
                    .play(&mv)
                    .outcome()
                    .is_some_and(|outcome| outcome.winner == Some(mover))
            });
            if mates {
                found.push(record.clone());
                break;
            }
            let mv = random_move(position, &mut rng);
            play(&mut record, &mv);
        }
        if found.len() == wanted {
            break;
        }
    }
    found
}

/// `choice` wins the game in `record` on the spot, and says so.
fn assert_wins(record: &Record, choice: &engine::Choice, who: &str) {
    let position = record.position();
    let after = position.play(&choice.mv);
    assert_eq!(
        after.outcome().and_then(|outcome| outcome.winner),
        Some(position.turn()),
        "{} {who}: {} in {}",
        position.variant(),
        position.move_text(&choice.mv),
        position.to_text()
    );
    assert_eq!(choice.score, engine::MATE - 1, "{who}");
}

#[test]
fn every_level_takes_a_mate_in_one() {
    for variant in Variant::ALL {
        let records = mates_in_one(variant, 3);
        assert!(
            !records.is_empty(),
            "{variant}: no mate in one found to test with"
        );
        for record in &records {
            for level in 1..=3 {
                let level = Level::new(level).expect("1 to 3 are levels");
                let choice = engine::choose(record, level, 11).expect("the game goes on");
                assert_wins(record, &choice, &format!("level {level}"));
            }
        }
    }
}

/// A search that always blunders still takes a win on the spot, and elsewhere plays a legal
/// move that its seed picks (so other seeds pick others); noise never hides a mate either.
#[test]
fn blunders_and_noise_never_pass_up_a_win_on_the_spot() {
    for variant in Variant::ALL {
        for record in &mates_in_one(variant, 2) {
            for limits in [
                Limits {
                    nodes: 2_000,
                    blunders: 1_000,
                    ..Limits::default()
                },
                Limits {
                    nodes: 2_000,
                    noise: 1_000,
                    ..Limits::default()
                },
            ] {
                let choice = engine::search(record, &limits, 5).expect("the game goes on");
                assert_wins(record, &choice, &format!("{limits:?}"));
            }
        }
        let start = Record::new(VariantPosition::start(variant));
        let random = Limits {
            nodes: 2_000,
            blunders: 1_000,
            ..Limits::default()
        };
        let picked: std::collections::HashSet<String> = (0..20)
            .map(|seed| {
                let choice = engine::search(&start, &random, seed).expect("a move");
                start.position().move_text(&choice.mv)
            })
            .collect();
        assert!(picked.len() >= 5, "{variant}: {picked:?}");
        let again = engine::search(&start, &random, 3).map(|choice| choice.mv);
        assert_eq!(
            again,
            engine::search(&start, &random, 3).map(|choice| choice.mv)
        );
    }
}

#[test]
fn the_engine_plays_only_legal_moves_at_every_level() {
    for variant in Variant::ALL {
        for level in 1..=3 {
            let level = Level::new(level).expect("1 to 3 are levels");
            let mut record = Record::new(VariantPosition::start(variant));
            let mut rng = fastrand::Rng::with_seed(u64::from(level.number()));
            // Engine against random for a few moves each: `play` asserts legality.
            while record.outcome().is_none() && record.moves().len() < 16 {
                let mv = if record.moves().len().is_multiple_of(2) {
                    engine::choose(&record, level, rng.u64(..))
                        .expect("the game goes on")
                        .mv
                } else {
                    random_move(record.position(), &mut rng)
                };
                play(&mut record, &mv);
            }
        }
    }
}

#[test]
fn the_search_stops_at_its_node_budget_with_a_legal_move() {
    for variant in Variant::ALL {
        let record = Record::new(VariantPosition::start(variant));
        for nodes in [1, 10, 500] {
            let limits = Limits {
                depth: 30,
                nodes,
                time: None,
                ..Limits::default()
            };
            let choice = engine::search(&record, &limits, 3).expect("the start has moves");
            assert!(record.position().legal_moves().contains(&choice.mv));
            // The last node may finish the one being looked at when the budget ran out.
            assert!(
                choice.nodes <= nodes + 1,
                "{variant}: {} nodes",
                choice.nodes
            );
            assert!(choice.depth < 30);
        }
    }
}

/// A position `plies` random plies into a game that is still running then.
fn middlegame(variant: Variant, plies: usize, seed: u64) -> Record {
    let mut record = Record::new(VariantPosition::start(variant));
    let mut rng = fastrand::Rng::with_seed(seed);
    while record.moves().len() < plies {
        let mv = random_move(record.position(), &mut rng);
        if record.position().play(&mv).outcome().is_some() {
            break;
        }
        play(&mut record, &mv);
    }
    record
}

#[test]
fn every_level_completes_its_depth_within_its_budget() {
    // Each level's node budget, without its time limit, so the test does not depend on the
    // machine: from the start and from positions further on, a level given a depth
    // (Chesscala's lower levels) reaches it, and every other level looks at the reply to
    // each move at least (Chesscala's search was once lost in its captures and checks at
    // depth 1; with hundreds of turns a side it reaches two or three plies at level 5).
    for variant in Variant::ALL {
        // Each different search once (Chesscala's levels 1 to 3 search alike, but for
        // their random moves).
        let mut searches: Vec<(u8, u32, u64)> = (1..=5)
            .map(|number| {
                let level = Level::new(number).expect("a level").limits(variant);
                (number, level.depth.min(2), level.nodes)
            })
            .collect();
        searches.dedup_by_key(|&mut (_, depth, nodes)| (depth, nodes));
        for (number, depth, nodes) in searches {
            for (plies, seed) in [(0, 1), (6, 2), (16, 3)] {
                let record = middlegame(variant, plies, seed);
                let limits = Limits {
                    depth,
                    nodes,
                    time: None,
                    ..Limits::default()
                };
                let choice = engine::search(&record, &limits, 7).expect("the game goes on");
                assert_eq!(
                    choice.depth,
                    depth,
                    "{variant} level {number}, {} plies in ({}): {} nodes",
                    record.moves().len(),
                    record.position().to_text(),
                    choice.nodes,
                );
            }
        }
    }
}

#[test]
fn a_time_budget_ends_a_deep_search() {
    let record = Record::new(VariantPosition::start(Variant::Chesscala));
    let limits = Limits {
        depth: 64,
        nodes: u64::MAX,
        time: Some(Duration::from_millis(50)),
        ..Limits::default()
    };
    // Sixty-four plies of Chesscala cannot complete: only the clock can stop this search.
    let choice = engine::search(&record, &limits, 5).expect("the start has moves");
    assert!(choice.depth < 64);
    assert!(record.position().legal_moves().contains(&choice.mv));
}

#[test]
fn the_same_seed_gives_the_same_games() {
    for variant in Variant::ALL {
        let first = engine_vs_random(variant, Level::new(1).expect("a level"), Color::White, 42);
        let again = engine_vs_random(variant, Level::new(1).expect("a level"), Color::White, 42);
        assert_eq!(first, again, "{variant}");
    }
}

#[test]
fn every_game_has_levels_that_search_more_and_misjudge_less_the_higher_they_are() {
    for variant in Variant::ALL {
        let limits: Vec<Limits> = (1..=5)
            .map(|number| Level::new(number).expect("a level").limits(variant))
            .collect();
        // Each level searches at least as many nodes, as deep, as the one below, and more
        // of one or the other (or it errs less, below).
        assert!(
            limits.windows(2).all(|pair| pair[0].nodes <= pair[1].nodes
                && pair[0].depth <= pair[1].depth
                && (pair[0].nodes < pair[1].nodes
                    || pair[0].depth < pair[1].depth
                    || pair[0].blunders > pair[1].blunders)),
            "{variant}: {limits:?}"
        );
        assert!(
            limits.windows(2).all(|pair| pair[0].noise >= pair[1].noise),
            "{variant}: {limits:?}"
        );
        assert!(
            limits
                .windows(2)
                .all(|pair| pair[0].blunders >= pair[1].blunders),
            "{variant}: {limits:?}"
        );
        assert_eq!(
            limits[4].noise, 0,
            "{variant}: the strongest level is exact"
        );
        assert_eq!(
            limits[4].blunders, 0,
            "{variant}: the strongest level never blunders"
        );
        assert!(
            limits
                .iter()
                .all(|limits| limits.time == Some(engine::TIME_LIMIT)),
            "{variant}: {limits:?}"
        );
    }
}

#[test]
fn levels_read_from_text() {
    assert_eq!("3".parse::<Level>().map(Level::number), Ok(3));
    assert!("0".parse::<Level>().is_err());
    assert!("6".parse::<Level>().is_err());
    assert!("x".parse::<Level>().is_err());
    assert_eq!(Level::default(), Level::DEFAULT);
}

#[test]
fn the_engine_declines_a_draw_unless_clearly_worse() {
    // Chad: White a full queen up (and to move); Black has lost its rooks but two.
    let record = Record::new(
        VariantPosition::from_text(
            Variant::Chad,
            "12/12/7r4/8k3/7r4/12/12/2RRR7/2RKR7/2RRQ7/12/12 w",
        )
        .expect("a valid position"),
    );
    assert!(!engine::accepts_draw(&record, Color::White, 1));
    assert!(engine::accepts_draw(&record, Color::Black, 1));
    let start = Record::new(VariantPosition::start(Variant::Chak));
    assert!(!engine::accepts_draw(&start, Color::White, 1));
    assert!(!engine::accepts_draw(&start, Color::Black, 1));
}

/// Prints how long each level thinks about a middlegame position of every game (the goal is
/// at most 2 s at every level; the figures go in the closing notes, not in an assertion).
#[test]
#[ignore = "takes about 15 s; prints the engine's thinking times"]
fn every_level_answers_in_every_game() {
    for variant in Variant::ALL {
        // A position up to twenty random plies in, where the game goes on.
        let record = middlegame(variant, 20, 9);
        for number in 1..=5 {
            let level = Level::new(number).expect("1 to 5 are levels");
            let started = Instant::now();
            let choice = engine::choose(&record, level, 1).expect("the game goes on");
            println!(
                "{variant} level {number}: {:.3} s, depth {}, {} nodes",
                started.elapsed().as_secs_f64(),
                choice.depth,
                choice.nodes
            );
            assert!(record.position().legal_moves().contains(&choice.mv));
        }
    }
}

/// How many openings `print_balanced_openings` finds for each game.
const OPENINGS: usize = 64;

/// Prints candidate openings for `assets/openings/<game>.txt`: random sequences of four plies
/// (two in Chesscala, whose turns are long) after which a short search finds neither side
/// better by more than 60 points, each reaching a position no other one reaches, as UCI words.
#[test]
#[ignore = "prints openings for the match runner; run in release"]
fn print_balanced_openings() {
    for variant in Variant::ALL {
        let plies = if variant == Variant::Chesscala { 2 } else { 4 };
        let mut rng = fastrand::Rng::with_seed(2026);
        // The positions the openings reach: two orders of the same moves are one opening.
        let mut found: Vec<String> = Vec::new();
        let mut tries = 0;
        while found.len() < OPENINGS && tries < 20_000 {
            tries += 1;
            let mut record = Record::new(VariantPosition::start(variant));
            while record.moves().len() < plies && record.outcome().is_none() {
                let mv = random_move(record.position(), &mut rng);
                play(&mut record, &mv);
            }
            if record.outcome().is_some() {
                continue;
            }
            let limits = Limits {
                nodes: 20_000,
                ..Limits::default()
            };
            let Some(choice) = engine::search(&record, &limits, 1) else {
                continue;
            };
            let words: Vec<String> = record
                .moves()
                .iter()
                .map(|m| pigeon::uci::wire(&m.text))
                .collect();
            let reached = record.position().to_text();
            if choice.score.abs() <= 60 && !found.contains(&reached) {
                println!("{variant} {} # {}", words.join(" "), choice.score);
                found.push(reached);
            }
        }
    }
}
