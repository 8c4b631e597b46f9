//! Speed of correspondence play through the service on a real SQLite file.
//!
//! - `turn/<game>`: a full turn through the chat layer (parse, validate, commit, render, reply),
//!   timed per call; the p50 and p99 of every call are printed after the group.
//! - `list/10k_games`: a player's games listed with 10,000 games stored.
//! - `moves_1000_games`: moves through `Service::play` (with the picture a reply shows, drawn
//!   while each move is stored), 1,000 games played concurrently on one file;
//!   criterion's throughput is moves per second.
//! - `load/<backend>/<N>_games`: many players on one database: N games of all four kinds
//!   stored and going on, and four players (`PIGEON_BENCH_PLAYERS`) at any moment each
//!   making a full turn (chat,
//!   commit, picture, reply) in a game picked at random; criterion's throughput is moves per
//!   second, and the p50 and p99 of every turn, the process's peak resident memory and the
//!   processor time a turn takes (all threads, the bench's own choosing of moves included)
//!   are printed. `sqlite` always; `postgres` when `PIGEON_BENCH_POSTGRES` names a PostgreSQL
//!   server (`postgres://user@127.0.0.1:5432/postgres`) where the bench may create a
//!   database of its own.
//!
//! Run with `cargo bench --bench service`; `tests/postgres.sh` starts a throwaway server:
//! `tests/postgres.sh sh -c 'PIGEON_BENCH_POSTGRES=$PIGEON_TEST_POSTGRES cargo bench --bench
//! service -- load'`.

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

/// A service on a new, empty database of `backend` (`sqlite` or `postgres`): a file in `dir`,
/// or a database of its own on the server `PIGEON_BENCH_POSTGRES` names. `None` when that
/// backend is not available.
async fn service_on(backend: &str, dir: &tempfile::TempDir, name: &str) -> Option<Service> {
    if backend == "sqlite" {
        return Some(service(dir, &format!("{name}.db")).await);
    }
    use sqlx::Connection;
    let server = std::env::var("PIGEON_BENCH_POSTGRES").ok()?;
    let database = format!(
        "pigeon_bench_{name}_{}_{:08x}",
        std::process::id(),
        fastrand::u32(..)
    );
    let mut admin = sqlx::PgConnection::connect(&server)
        .await
        .expect("the PostgreSQL server answers");
    // The name is made above of digits, letters and underscores only.
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {database}")))
        .execute(&mut admin)
        .await
        .expect("a bench database is created");
    admin.close().await.expect("closed");
    let (base, query) = server.split_once('?').unwrap_or((&server, ""));
    let (cluster, _) = base.rsplit_once('/').expect("the URL names a database");
    let query = if query.is_empty() {
        String::new()
    } else {
        format!("?{query}")
    };
    let store = Store::connect(&format!("{cluster}/{database}{query}"))
        .await
        .expect("opens");
    Some(Service::new(store, Arc::new(ManualClock::new(START))))
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

/// A stored game and its players' names, white first.
struct Game {
    id: i64,
    players: [String; 2],
}

impl Game {
    async fn new(service: &Service, variant: Variant, white: &str, black: &str) -> Game {
        Game {
            id: new_game(service, variant, white, black).await,
            players: [white.to_owned(), black.to_owned()],
        }
    }
}

/// The next move of a game, and who plays it: a legal move picked by the ply, so games differ
/// but repeat. Read from the stored position in one statement, and only the move picked is
/// written out, so that choosing costs little next to playing.
async fn next_move(service: &Service, game: &Game) -> Option<(String, String)> {
    let row = service.store().game(game.id).await.ok()??;
    if row.status != "active" || row.ply >= 60 {
        return None;
    }
    let variant = Variant::from_name(&row.game_key)?;
    let position = VariantPosition::from_text(variant, &row.position).ok()?;
    let moves = position.legal_moves();
    let pick = moves.get((row.ply as usize * 7 + 3) % moves.len().max(1))?;
    let mover = usize::from(position.turn() != Color::White);
    Some((game.players[mover].clone(), position.move_text(pick)))
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
        let mut game = rt.block_on(Game::new(&service, variant, "alice", "bob"));
        group.bench_function(variant.key(), |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    let (mover, text) = loop {
                        match rt.block_on(next_move(&service, &game)) {
                            Some(next) => break next,
                            None => {
                                let _ = rt.block_on(service.resign(
                                    &place(),
                                    &user("alice"),
                                    Some(game.id),
                                ));
                                game = rt.block_on(Game::new(&service, variant, "alice", "bob"));
                            }
                        }
                    };
                    let incoming = Incoming {
                        place: place(),
                        user: user(&mover),
                        text: format!("move #{} {text}", game.id),
                        event_id: None,
                        addressed: true,
                        manager: false,
                        means: chat::Means::TYPED,
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
    // Stored on the first call only: a run filtered to other groups does not pay for it.
    let stored = std::cell::OnceCell::new();
    let mut group = c.benchmark_group("list");
    group.sample_size(50);
    group.bench_function("10k_games", |b| {
        let service = stored.get_or_init(|| {
            rt.block_on(async {
                let service = service(&dir, "list.db").await;
                for n in 0..10_000 {
                    let (white, black) =
                        (format!("p{}", n % 500), format!("p{}", (n * 7 + 1) % 500));
                    if white != black {
                        new_game(&service, Variant::Chak, &white, &black).await;
                    }
                }
                service
            })
        });
        b.iter(|| {
            rt.block_on(service.games(&place(), &user("p42"), Scope::Mine))
                .expect("listed")
        });
    });
    group.finish();
}

/// Players acting at the same moment in the load bench: `PIGEON_BENCH_PLAYERS`, else 4.
fn players() -> u64 {
    std::env::var("PIGEON_BENCH_PLAYERS")
        .ok()
        .and_then(|players| players.parse().ok())
        .filter(|&players| players > 0)
        .unwrap_or(4)
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(1));
    for (backend, games) in [
        ("sqlite", 1_000),
        ("sqlite", 10_000),
        ("postgres", 1_000),
        ("postgres", 10_000),
    ] {
        if backend == "postgres" && std::env::var_os("PIGEON_BENCH_POSTGRES").is_none() {
            println!("load/{backend}: skipped, PIGEON_BENCH_POSTGRES is not set");
            continue;
        }
        let rt = runtime();
        let dir = tempfile::tempdir().expect("a temporary folder");
        // Stored on the first call only: a run filtered to other groups does not pay for it.
        let stored = std::cell::OnceCell::new();
        let samples = Arc::new(std::sync::Mutex::new(Vec::<Duration>::new()));
        let rng = Arc::new(std::sync::Mutex::new(fastrand::Rng::with_seed(7)));
        // The processor time and the time the turns took, over every iteration.
        let used = std::sync::Mutex::new((Duration::ZERO, Duration::ZERO));
        group.bench_function(format!("{backend}/{games}_games"), |b| {
            let (service, ids) = stored.get_or_init(|| {
                rt.block_on(async {
                    let service = service_on(backend, &dir, &format!("players_{games}"))
                        .await
                        .expect("the backend is available");
                    let mut ids = Vec::with_capacity(games);
                    for n in 0..games {
                        let variant = Variant::ALL[n % Variant::ALL.len()];
                        ids.push(
                            Game::new(&service, variant, &format!("w{n}"), &format!("b{n}")).await,
                        );
                    }
                    (service, Arc::new(ids))
                })
            });
            let players = players();
            b.iter_custom(|moves| {
                let (start, cpu) = (Instant::now(), cpu_time());
                rt.block_on(async {
                    let workers: Vec<_> = (0..players)
                        .map(|worker| {
                            let share = moves / players + u64::from(worker < moves % players);
                            let (service, ids) = (service.clone(), Arc::clone(ids));
                            let (samples, rng) = (Arc::clone(&samples), Arc::clone(&rng));
                            tokio::spawn(async move {
                                for _ in 0..share {
                                    let took = random_turn(&service, &ids, &rng).await;
                                    samples.lock().expect("not poisoned").push(took);
                                }
                            })
                        })
                        .collect();
                    for worker in workers {
                        worker.await.expect("the player's task runs");
                    }
                });
                let mut used = used.lock().expect("not poisoned");
                used.0 += cpu_time().saturating_sub(cpu);
                used.1 += start.elapsed();
                start.elapsed()
            });
        });
        let mut samples = std::mem::take(&mut *samples.lock().expect("not poisoned"));
        samples.sort_unstable();
        if !samples.is_empty() {
            let (cpu, wall) = *used.lock().expect("not poisoned");
            println!(
                "load/{backend}/{games}_games: {} turns, p50 {:.2} ms, p99 {:.2} ms, peak RSS {} MB, \
                 processor time {:.2} ms a turn ({:.0} % of one core)",
                samples.len(),
                percentile(&samples, 0.50).as_secs_f64() * 1e3,
                percentile(&samples, 0.99).as_secs_f64() * 1e3,
                peak_rss_kb() / 1024,
                cpu.as_secs_f64() * 1e3 / samples.len() as f64,
                cpu.as_secs_f64() * 100.0 / wall.as_secs_f64().max(1e-9),
            );
        }
    }
    group.finish();
}

/// One full turn through the chat layer in a random game still going on; its duration.
async fn random_turn(
    service: &Service,
    games: &[Game],
    rng: &std::sync::Mutex<fastrand::Rng>,
) -> Duration {
    loop {
        let game = &games[rng.lock().expect("not poisoned").usize(..games.len())];
        let Some((mover, text)) = next_move(service, game).await else {
            continue;
        };
        let incoming = Incoming {
            place: place(),
            user: user(&mover),
            text: format!("move #{} {text}", game.id),
            event_id: None,
            addressed: true,
            manager: false,
            means: chat::Means::TYPED,
            mentions: Vec::new(),
        };
        let start = Instant::now();
        let replies = chat::handle(service, &incoming).await;
        let took = start.elapsed();
        // Another player may have moved in this game first: then try another game.
        if replies.first().is_some_and(|r| r.picture.is_some()) {
            return took;
        }
    }
}

/// The processor time the process has used so far, all its threads together (`utime` and
/// `stime` of `/proc/self/stat`, in Linux's fixed 100 ticks a second); zero where it cannot
/// be read.
fn cpu_time() -> Duration {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| {
            // The fields after the command name, which is in parentheses and may hold spaces.
            let fields: Vec<u64> = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .map(|field| field.parse().unwrap_or(0))
                .collect();
            Some(fields.get(11)? + fields.get(12)?)
        })
        .unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

/// The process's peak resident memory (`VmHWM`), in kilobytes; 0 where it cannot be read.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn concurrent_moves(c: &mut Criterion) {
    const GAMES: usize = 1000;
    let rt = runtime();
    let dir = tempfile::tempdir().expect("a temporary folder");
    // Stored on the first call only: a run filtered to other groups does not pay for it.
    let stored = std::cell::OnceCell::new();
    let mut group = c.benchmark_group("moves_1000_games");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(GAMES as u64));
    group.bench_function("one_move_each", |b| {
        let (service, games) = stored.get_or_init(|| {
            rt.block_on(async {
                let service = service(&dir, "load.db").await;
                let mut games = Vec::with_capacity(GAMES);
                for n in 0..GAMES {
                    let (white, black) = (format!("w{n}"), format!("b{n}"));
                    games.push(Game::new(&service, Variant::Chak, &white, &black).await);
                }
                (service, Arc::new(games))
            })
        });
        b.iter(|| {
            rt.block_on(async {
                let tasks: Vec<_> = (0..games.len())
                    .map(|n| {
                        let (service, games) = (service.clone(), Arc::clone(games));
                        tokio::spawn(async move {
                            let game = &games[n];
                            if let Some((mover, text)) = next_move(&service, game).await {
                                let _ = service
                                    .play(&place(), &user(&mover), Some(game.id), &text)
                                    .await;
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

criterion_group!(benches, turn, list, concurrent_moves, load);
criterion_main!(benches);
