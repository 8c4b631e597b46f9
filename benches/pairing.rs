//! Speed of the Swiss pairing engine: the Dutch system pairing round 8 of a 200-player
//! tournament of 9 rounds.
//!
//! Run with `cargo bench --bench pairing`. The tournament is played out here first, each
//! round paired by the engine and its results drawn from a seeded generator (the stronger
//! player wins more often; a third of the games are drawn). The goal is under a second per
//! round.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use pigeon::pairing::{self, Tournament, trf};

const PLAYERS: usize = 200;
const PLANNED: usize = 9;
const PLAYED: usize = 7;

/// The TRF of a tournament whose rounds so far are `blocks` (per player, one 8-column block
/// per round) and whose points are `points` (tenths).
fn trf_text(blocks: &[Vec<String>], points: &[u32]) -> String {
    let mut text = String::from("012 Pairing bench\n");
    for (index, rounds) in blocks.iter().enumerate() {
        let id = index + 1;
        let name = format!("Player {id}");
        let rating = 2700 - 5 * index;
        let score = format!("{}.{}", points[index] / 10, points[index] % 10);
        let _ = write!(
            text,
            "001 {id:>4}      {name:<33} {rating:>4}{:28}{score:>4}{id:>5}",
            ""
        );
        for block in rounds {
            let _ = write!(text, "  {block:>8}");
        }
        text.push('\n');
    }
    let _ = writeln!(text, "092 FIDE_DUTCH_2025\nXXR {PLANNED}\nXXC white1");
    text
}

/// A tournament of `PLAYERS` players after `PLAYED` rounds, each paired by the engine.
fn played_tournament() -> Tournament {
    let mut rng = fastrand::Rng::with_seed(2026);
    let mut blocks = vec![Vec::new(); PLAYERS];
    let mut points = vec![0u32; PLAYERS];
    for _ in 0..PLAYED {
        let tournament = trf::read(&trf_text(&blocks, &points)).expect("the bench TRF reads");
        for pair in pairing::pair_dutch(&tournament).expect("the round pairs") {
            let white = pair.white;
            let Some(black) = pair.black else {
                blocks[white].push("0000 - U".to_owned());
                points[white] += 10;
                continue;
            };
            let roll = rng.u32(0..100);
            // The higher seed (lower index) wins 45 times in 100, draws 33 times.
            let higher_wins = white < black;
            let (white_points, black_points) = match roll {
                0..45 if higher_wins => (10, 0),
                0..45 => (0, 10),
                45..78 => (5, 5),
                _ if higher_wins => (0, 10),
                _ => (10, 0),
            };
            let result = |points: u32| match points {
                10 => '1',
                5 => '=',
                _ => '0',
            };
            blocks[white].push(format!("{} w {}", black + 1, result(white_points)));
            blocks[black].push(format!("{} b {}", white + 1, result(black_points)));
            points[white] += white_points;
            points[black] += black_points;
        }
    }
    trf::read(&trf_text(&blocks, &points)).expect("the bench TRF reads")
}

fn dutch(c: &mut Criterion) {
    let tournament = played_tournament();
    let mut group = c.benchmark_group("pairing");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("dutch_200_players_round_8", |b| {
        b.iter(|| pairing::pair_dutch(black_box(&tournament)).expect("the round pairs"));
    });
    group.finish();
}

criterion_group!(benches, dutch);
criterion_main!(benches);
