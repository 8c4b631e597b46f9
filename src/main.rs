//! The `pigeon` command: the chat bots and the command-line tools.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

mod args;

use args::{Args, Command, PairingSystem, Side, TuneStep, WebArgs};
use clap::Parser;
#[cfg(feature = "matrix")]
use pigeon::adapters::matrix::{self, MatrixConfig};
use pigeon::adapters::{console, redacted};
use pigeon::arena;
use pigeon::cli;
use pigeon::rules::{Color, Variant};
use pigeon::service::{Clock, ManualClock, RateLimit, Service, SystemClock};
use pigeon::store::{DatabaseUrl, Store};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::{error, info};
use tracing_subscriber::EnvFilter;

/// Opens the game database `url` names; the error names the database (never its password).
async fn open_store(url: &DatabaseUrl) -> Result<Store, String> {
    let store = match url {
        DatabaseUrl::Sqlite(path) => Store::open(path).await,
        DatabaseUrl::Postgres(postgres) => Store::connect(postgres).await,
    };
    store.map_err(|e| format!("{url}: {}", redacted(&e)))
}

fn main() -> ExitCode {
    let _ = dotenvy::dotenv();
    let args = Args::parse();
    match args.command {
        Command::Console {
            db,
            out,
            script,
            now,
            web,
        } => {
            return run_async(async move { console_main(db.url()?, out, script, now, web).await });
        }
        Command::Backup { file, db } => {
            return run_async(async move { backup_main(db.url()?, file).await });
        }
        Command::MigrateDb { from, to } => {
            return run_async(async move { migrate_main(&from, &to).await });
        }
        #[cfg(feature = "discord")]
        Command::Discord { db, discord } => {
            return run_async(async move {
                let config = discord
                    .config()
                    .ok_or("DISCORD_TOKEN is not set: give the bot's token")?;
                let bots = Bots {
                    discord: Some(config),
                    #[cfg(feature = "matrix")]
                    matrix: None,
                };
                serve_main(db.url()?, bots, WebArgs::none(), None).await
            });
        }
        #[cfg(feature = "matrix")]
        Command::Matrix { db, matrix } => {
            return run_async(async move {
                let db = db.url()?;
                let config = matrix
                    .config(&db)?
                    .ok_or("MATRIX_HOMESERVER is not set: give the homeserver's URL")?;
                let bots = Bots {
                    #[cfg(feature = "discord")]
                    discord: None,
                    matrix: Some(config),
                };
                serve_main(db, bots, WebArgs::none(), None).await
            });
        }
        Command::Serve {
            db,
            discord,
            matrix,
            now,
            web,
        } => {
            return run_async(async move {
                let db = db.url()?;
                #[cfg(not(feature = "discord"))]
                if discord.token.is_some() {
                    return Err(String::from(
                        "DISCORD_TOKEN is set, but this pigeon was built without Discord: \
                         build it with `--features discord`",
                    ));
                }
                #[cfg(not(feature = "matrix"))]
                if matrix.homeserver.is_some() {
                    return Err(String::from(
                        "MATRIX_HOMESERVER is set, but this pigeon was built without Matrix: \
                         build it with `--features matrix`",
                    ));
                }
                let bots = Bots {
                    #[cfg(feature = "discord")]
                    discord: discord.config(),
                    #[cfg(feature = "matrix")]
                    matrix: matrix.config(&db)?,
                };
                serve_main(db, bots, web, now).await
            });
        }
        _ => {}
    }
    let stdout = io::stdout();
    let result = match args.command {
        Command::Console { .. }
        | Command::Backup { .. }
        | Command::MigrateDb { .. }
        | Command::Serve { .. } => Ok(()),
        #[cfg(feature = "discord")]
        Command::Discord { .. } => Ok(()),
        #[cfg(feature = "matrix")]
        Command::Matrix { .. } => Ok(()),
        Command::Moves { game, position } => {
            cli::moves(game, position.as_deref(), io::stdin().lock(), stdout.lock())
        }
        Command::Perft {
            game,
            depth,
            position,
            divide,
        } => cli::perft(game, depth, &position, divide, stdout.lock()),
        Command::Pair {
            system: PairingSystem::Dutch,
            file,
        } => cli::pair_dutch(&file, stdout.lock()),
        Command::Play {
            game,
            position,
            moves,
        } => cli::play(game, &position, &moves)
            .and_then(|text| writeln!(stdout.lock(), "{text}").map_err(Into::into)),
        Command::Render {
            game,
            position,
            last,
            side,
            white,
            black,
            deadline,
            output,
        } => {
            let request = cli::RenderRequest {
                last,
                side: side.map(|side| match side {
                    Side::White => Color::White,
                    Side::Black => Color::Black,
                }),
                white,
                black,
                deadline,
            };
            cli::render(game, &position, &request)
                .and_then(|png| std::fs::write(&output, png).map_err(Into::into))
        }
        Command::Match {
            engines,
            variant,
            games,
            first_game,
            nodes,
            depth,
            movetime,
            tc,
            max_plies,
            sprt,
            records,
            concurrency,
        } => {
            let request = MatchRequest {
                engines,
                variant,
                games,
                first_game,
                limit: (nodes, depth, movetime, tc),
                max_plies,
                sprt,
                records,
                concurrency,
            };
            return match_main(request);
        }
        Command::Uci { level } => {
            pigeon::uci::run(io::stdin().lock(), io::stdout(), level).map_err(Into::into)
        }
        Command::Tune { step } => return exit_code(tune_step(step)),
        Command::Gif {
            game,
            moves,
            output,
        } => {
            cli::gif(game, &moves).and_then(|gif| std::fs::write(&output, gif).map_err(Into::into))
        }
    };
    exit_code(result)
}

/// Success, or the error printed and failure.
fn exit_code<E: std::fmt::Display>(result: Result<(), E>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

/// `pigeon tune`: self-play positions, or the weights fitted to them.
fn tune_step(step: TuneStep) -> Result<(), Box<dyn std::error::Error>> {
    use pigeon::engine::tune;
    match step {
        TuneStep::Selfplay {
            variant,
            games,
            nodes,
            random_plies,
            threads,
            seed,
            output,
        } => {
            let config = tune::SelfPlay {
                variant,
                games,
                nodes,
                random_plies,
                threads,
                seed,
            };
            let created = std::fs::File::create(&output)
                .map_err(|error| format!("cannot write {}: {error}", output.display()))?;
            let mut file = io::BufWriter::new(created);
            let progress = |done: usize| {
                if done.is_multiple_of(100) || done == games {
                    eprintln!("{done} of {games} games");
                }
            };
            let positions = tune::self_play(&config, &mut file, &progress)?;
            file.flush()?;
            eprintln!("{positions} positions written to {}", output.display());
            Ok(())
        }
        TuneStep::Fit {
            file,
            variant,
            iterations,
            rate,
            pull,
            output,
        } => {
            let text = std::fs::read_to_string(&file).map_err(|error| {
                format!(
                    "cannot read {}: {error} (write it with `pigeon tune selfplay -o FILE`)",
                    file.display()
                )
            })?;
            let config = tune::Fit {
                iterations,
                rate,
                pull,
            };
            let weights = tune::fit(variant, &text, &config, &mut io::stderr())?;
            let printed = tune::weights_file(variant, &weights);
            match output {
                Some(path) => std::fs::write(path, printed)?,
                None => io::stdout().write_all(printed.as_bytes())?,
            }
            Ok(())
        }
    }
}

/// The arguments of `pigeon match`.
struct MatchRequest {
    engines: Vec<String>,
    variant: Variant,
    games: usize,
    first_game: usize,
    /// `--nodes`, `--depth`, `--movetime`, `--tc`: at most one is given.
    limit: (Option<u64>, Option<u32>, Option<u64>, Option<String>),
    max_plies: Option<usize>,
    sprt: Option<String>,
    records: Option<PathBuf>,
    concurrency: usize,
}

/// `pigeon match`: plays, prints the report, writes the records.
fn match_main(request: MatchRequest) -> ExitCode {
    let run = || -> Result<(), String> {
        let [first, second] = <[String; 2]>::try_from(request.engines)
            .map_err(|_| String::from("give exactly two engines: --engine A --engine B"))?;
        let limit = match request.limit {
            (Some(nodes), ..) => arena::MoveLimit::Nodes(nodes.max(1)),
            (_, Some(depth), ..) => arena::MoveLimit::Depth(depth.max(1)),
            (_, _, Some(millis), _) => {
                arena::MoveLimit::MoveTime(std::time::Duration::from_millis(millis.max(1)))
            }
            (_, _, _, Some(tc)) => arena::MoveLimit::clock(&tc)?,
            _ => arena::MoveLimit::MoveTime(std::time::Duration::from_millis(100)),
        };
        let sprt = request.sprt.as_deref().map(parse_sprt).transpose()?;
        let config = arena::MatchConfig {
            engines: [first, second],
            variant: request.variant,
            games: request.games,
            first_game: request.first_game,
            limit,
            max_plies: request.max_plies,
            sprt,
            concurrency: request.concurrency,
            records: request.records,
        };
        let mut log = io::stdout();
        let report = arena::play_match(&config, &mut log).map_err(|e| e.to_string())?;
        for line in report.summary(config.sprt.as_ref()) {
            println!("{line}");
        }
        report
            .stopped
            .map_or(Ok(()), |stopped| Err(stopped.to_string()))
    };
    exit_code(run())
}

/// Reads `--sprt ELO0,ELO1`.
fn parse_sprt(text: &str) -> Result<arena::Sprt, String> {
    let bad = || format!("--sprt {text}: write two Elo differences, such as 0,10");
    let (elo0, elo1) = text.split_once(',').ok_or_else(bad)?;
    let read = |part: &str| part.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    match (read(elo0), read(elo1)) {
        (Some(elo0), Some(elo1)) if elo0 < elo1 => Ok(arena::Sprt { elo0, elo1 }),
        _ => Err(bad()),
    }
}

/// Logs go to stderr, filtered by `RUST_LOG` (default: `default`).
fn init_logs(default: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .init();
}

fn run_async(task: impl Future<Output = RunResult>) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(task) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

/// The end of a long-running command: an error is text for the terminal.
type RunResult = Result<(), String>;

async fn console_main(
    db: DatabaseUrl,
    out: PathBuf,
    script: Option<PathBuf>,
    now: Option<i64>,
    web: WebArgs,
) -> RunResult {
    init_logs("warn");
    let store = open_store(&db).await?;
    store.hold_for_serving().await.map_err(|e| e.to_string())?;
    let clock = now.map_or_else(ManualClock::running, ManualClock::new);
    let mut service = Service::new(store.clone(), Arc::new(clock.clone()));
    let (stop_web, web_stopped) = watch::channel(false);
    let mut site = None;
    if let Some((listener, public)) = web.bind().await? {
        eprintln!("Game pages on {public}");
        service = service.with_public_url(&public);
        site = Some(tokio::spawn(pigeon::web::run(
            service.clone(),
            listener,
            pigeon::web::Settings::default(),
            web_stopped,
        )));
    }
    let stdout = tokio::io::stdout();
    let result = match script {
        Some(path) => {
            let file = tokio::fs::File::open(&path)
                .await
                .map_err(|e| format!("{}: {e}", path.display()))?;
            console::run(
                &service,
                &clock,
                tokio::io::BufReader::new(file),
                stdout,
                &out,
            )
            .await
        }
        None => {
            eprintln!(
                "Pigeon console on {db}, at {}. Type lines like `alice: challenge @bob chak`; \
                 `wait 25h` moves the clock on; Ctrl-D ends.",
                pigeon::service::clock::format_utc(service.now())
            );
            console::run(
                &service,
                &clock,
                tokio::io::BufReader::new(tokio::io::stdin()),
                stdout,
                &out,
            )
            .await
        }
    };
    let _ = stop_web.send(true);
    if let Some(site) = site {
        let _ = site.await;
    }
    store.close().await;
    result.map_err(|e| e.to_string())
}

async fn backup_main(db: DatabaseUrl, file: PathBuf) -> RunResult {
    init_logs("warn");
    if let DatabaseUrl::Sqlite(path) = &db
        && !path.exists()
    {
        return Err(format!("{db}: no such database"));
    }
    if file.exists() {
        return Err(format!(
            "{} exists already; name a new file",
            file.display()
        ));
    }
    let store = open_store(&db).await?;
    let result = store.backup(&file).await;
    store.close().await;
    result.map_err(|e| format!("backing up to {}: {e}", file.display()))?;
    println!("Backed up {db} to {}.", file.display());
    Ok(())
}

async fn migrate_main(from: &str, to: &str) -> RunResult {
    init_logs("warn");
    let parse = |url: &str| DatabaseUrl::parse(url).map_err(|e| e.to_string());
    let (from, to) = (parse(from)?, parse(to)?);
    if let DatabaseUrl::Sqlite(path) = &from
        && !path.exists()
    {
        return Err(format!("{from}: no such database"));
    }
    if from.to_string() == to.to_string() {
        return Err(String::from("--from and --to name the same database"));
    }
    let source = open_store(&from).await?;
    let target = open_store(&to).await?;
    let result = pigeon::service::migrate::migrate(&source, &target).await;
    source.close().await;
    target.close().await;
    let migrated = result.map_err(|e| format!("copying {from} to {to}: {}", redacted(&e)))?;
    for (table, rows) in &migrated.tables {
        println!("{table:<20} {rows:>9} rows");
    }
    println!(
        "Copied {from} to {to}: every table counted the same on both sides, and {} games \
         replayed to the same positions.",
        migrated.games
    );
    Ok(())
}

/// The chat bots `pigeon serve` runs: each one that is configured.
#[derive(Debug)]
struct Bots {
    #[cfg(feature = "discord")]
    discord: Option<pigeon::adapters::discord::DiscordConfig>,
    #[cfg(feature = "matrix")]
    matrix: Option<MatrixConfig>,
}

/// The running bots: each ends with its name and how it ended.
type Running = JoinSet<(&'static str, Result<(), String>)>;

/// Starts one bot: `run` is its adapter's `run(service, config, shutdown)`.
#[cfg_attr(not(any(feature = "matrix", feature = "discord")), allow(dead_code))]
fn spawn_bot<E: std::fmt::Display>(
    running: &mut Running,
    name: &'static str,
    run: impl Future<Output = Result<(), E>> + Send + 'static,
) {
    // A bot's error may hold a URL, and URLs may hold secrets.
    running.spawn(async move { (name, run.await.map_err(|e| redacted(&e))) });
}

/// Runs the configured bots on one game database until SIGINT or SIGTERM, or until one of
/// them fails; then tells the others to stop and waits for them.
#[cfg_attr(
    not(any(feature = "matrix", feature = "discord")),
    allow(unused_variables, unused_mut)
)]
async fn serve_main(db: DatabaseUrl, bots: Bots, web: WebArgs, now: Option<i64>) -> RunResult {
    init_logs("info");
    let site = web.bind().await?;
    let store = open_store(&db).await?;
    store.hold_for_serving().await.map_err(|e| e.to_string())?;
    let clock: Arc<dyn Clock> = match now {
        Some(now) => {
            let clock = ManualClock::running();
            clock.set(now);
            Arc::new(clock)
        }
        None => Arc::new(SystemClock),
    };
    let mut service = Service::new(store.clone(), clock).with_rate_limit(RateLimit::CHAT);
    if let Some((_, public)) = &site {
        service = service.with_public_url(public);
    }
    let (stop, shutdown) = watch::channel(false);
    let mut running = Running::new();
    #[cfg(feature = "matrix")]
    if let Some(config) = bots.matrix {
        let run = matrix::run(service.clone(), config, shutdown.clone());
        spawn_bot(&mut running, "matrix", run);
    }
    #[cfg(feature = "discord")]
    if let Some(config) = bots.discord {
        let run = pigeon::adapters::discord::run(service.clone(), config, shutdown.clone());
        spawn_bot(&mut running, "discord", run);
    }
    if running.is_empty() {
        store.close().await;
        return Err(String::from(
            "no chat is configured: set DISCORD_TOKEN, or MATRIX_HOMESERVER, MATRIX_USER and \
             MATRIX_PASSWORD (see .env.example)",
        ));
    }
    // The analyses of finished games, one at a time, beside the bots' clocks.
    let analyst = service.analyst();
    let stopped = shutdown.clone();
    running.spawn(async move {
        analyst.run(stopped).await;
        ("analyst", Ok(()))
    });
    if let Some((listener, _)) = site {
        let run = pigeon::web::run(
            service.clone(),
            listener,
            pigeon::web::Settings::default(),
            shutdown.clone(),
        );
        spawn_bot(&mut running, "web", run);
    }
    info!(database = %db, bots = running.len(), "Pigeon is serving");
    let mut failures = Vec::new();
    tokio::select! {
        () = stop_signal() => info!("stopping on a signal"),
        Some(ended) = running.join_next() => failures.extend(ended_badly(ended)),
    }
    let _ = stop.send(true);
    while let Some(ended) = running.join_next().await {
        failures.extend(ended_badly(ended));
    }
    store.close().await;
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// The message of a bot that failed or panicked.
fn ended_badly(
    ended: Result<(&'static str, Result<(), String>), tokio::task::JoinError>,
) -> Option<String> {
    let message = match ended {
        Ok((_, Ok(()))) => return None,
        Ok((name, Err(error))) => format!("{name}: {error}"),
        Err(error) => format!("a chat bot stopped unexpectedly: {error}"),
    };
    error!(%message, "a chat bot ended");
    Some(message)
}

/// Waits for SIGINT (Ctrl-C) or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
