//! Speed of correspondence play through the service on a real SQLite file.
//!
//! - `turn/<game>`: a full turn through the chat layer (parse, validate, commit, render, reply),
//!   timed per call; the p50 and p99 of every call are printed after the group.
//! - `list/10k_games`: a player's games listed with 10,000 games stored.
//! - `moves_1000_games`: moves without pictures, 1,000 games played concurrently on one file;
//!   criterion's throughput is moves per second.
//!
//! Run with `cargo bench --bench service`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pigeon::adapters::console;
use pigeon::chat::{self, Incoming};
use pigeon::rules::{Color, Variant, VariantPosition};
use pigeon::service::{ColorChoice, ManualClock, Place, Scope, Service, User};
use pigeon::store::Store;
use tokio::runtime::Runtime;

const START: i64 = 1_767_258_000;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

async fn service(dir: &tempfile::TempDir, name: &str) -> Service {
    let store = Store::open(&dir.path().join(name)).await.expect("opens");
    Service::new(store, Arc::new(ManualClock::new(START)))
}

fn place() -> Place {
    Place::new(console::PLATFORM, "bench")
}

fn user(name: &str) -> User {
    console::user(name)
}

async fn new_game(service: &Service, variant: Variant, white: &str, black: &str) -> i64 {
    service
        .challenge(
            &place(),
            &user(white),
            Some(&user(black)),
            variant,
            None,
            ColorChoice::White,
        )
        .await
        .expect("challenged");
    service
        .accept(&place(), &user(black), None)
        .await
        .expect("accepted")
        .row
        .id
}

/// The next move of a game: a legal move picked by the ply, so games differ but repeat. Read
/// from the stored position, so that choosing costs little next to playing.
async fn next_move(service: &Service, id: i64) -> Option<(String, String)> {
    let row = service.store().game(id).await.ok()??;
    if row.status != "active" || row.ply >= 60 {
        return None;
    }
    let variant = Variant::from_name(&row.game_key)?;
    let position = VariantPosition::from_text(variant, &row.position).ok()?;
    let moves = position.legal_move_texts();
    let pick = moves
        .get((row.ply as usize * 7 + 3) % moves.len().max(1))?
        .clone();
    let mover = if position.turn() == Color::White {
        row.white_id
    } else {
        row.black_id
    };
    let mover = service.store().player_by_id(mover).await.ok()??.platform_id;
    Some((mover, pick))
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn turn(c: &mut Criterion) {
    let rt = runtime();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let service = rt.block_on(service(&dir, "turns.db"));
    let mut group = c.benchmark_group("turn");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(8));
    for variant in Variant::ALL {
        let mut samples: Vec<Duration> = Vec::new();
        let mut game = rt.block_on(new_game(&service, variant, "alice", "bob"));
        group.bench_function(variant.key(), |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    let (mover, text) = loop {
                        match rt.block_on(next_move(&service, game)) {
                            Some(next) => break next,
                            None => {
                                let _ = rt.block_on(service.resign(
                                    &place(),
                                    &user("alice"),
                                    Some(game),
                                ));
                                game = rt.block_on(new_game(&service, variant, "alice", "bob"));
                            }
                        }
                    };
                    let incoming = Incoming {
                        place: place(),
                        user: user(&mover),
                        text: format!("move #{game} {text}"),
                        event_id: None,
                        addressed: true,
                        mentions: Vec::new(),
                    };
                    let start = Instant::now();
                    let replies = rt.block_on(chat::handle(&service, &incoming));
                    let took = start.elapsed();
                    assert!(!replies.is_empty() && !replies[0].private, "{replies:?}");
                    samples.push(took);
                    total += took;
                }
                total
            });
        });
        samples.sort_unstable();
        if !samples.is_empty() {
            println!(
                "turn/{}: {} turns, p50 {:.2} ms, p99 {:.2} ms",
                variant.key(),
                samples.len(),
                percentile(&samples, 0.50).as_secs_f64() * 1e3,
                percentile(&samples, 0.99).as_secs_f64() * 1e3
            );
        }
    }
    group.finish();
}

fn list(c: &mut Criterion) {
    let rt = runtime();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let service = rt.block_on(service(&dir, "list.db"));
    rt.block_on(async {
        for n in 0..10_000 {
            let (white, black) = (format!("p{}", n % 500), format!("p{}", (n * 7 + 1) % 500));
            if white != black {
                new_game(&service, Variant::Chak, &white, &black).await;
            }
        }
    });
    let mut group = c.benchmark_group("list");
    group.sample_size(50);
    group.bench_function("10k_games", |b| {
        b.iter(|| {
            rt.block_on(service.games(&place(), &user("p42"), Scope::Mine))
                .expect("listed")
        });
    });
    group.finish();
}

fn concurrent_moves(c: &mut Criterion) {
    const GAMES: usize = 1000;
    let rt = runtime();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let service = rt.block_on(service(&dir, "load.db"));
    let games: Vec<i64> = rt.block_on(async {
        let mut games = Vec::with_capacity(GAMES);
        for n in 0..GAMES {
            games.push(new_game(&service, Variant::Chak, &format!("w{n}"), &format!("b{n}")).await);
        }
        games
    });
    let mut group = c.benchmark_group("moves_1000_games");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(GAMES as u64));
    group.bench_function("one_move_each", |b| {
        b.iter(|| {
            rt.block_on(async {
                let tasks: Vec<_> = games
                    .iter()
                    .map(|&id| {
                        let service = service.clone();
                        tokio::spawn(async move {
                            if let Some((mover, text)) = next_move(&service, id).await {
                                let _ =
                                    service.play(&place(), &user(&mover), Some(id), &text).await;
                            }
                        })
                    })
                    .collect();
                for task in tasks {
                    task.await.expect("the task runs");
                }
            });
        });
    });
    group.finish();
}

criterion_group!(benches, turn, list, concurrent_moves);
criterion_main!(benches);
