//! The `pigeon` command: the chat bots and the command-line tools.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
#[cfg(feature = "matrix")]
use pigeon::adapters::matrix::{self, MatrixConfig};
use pigeon::adapters::{console, redacted};
use pigeon::arena;
use pigeon::cli;
use pigeon::config::Secret;
use pigeon::engine::Level;
use pigeon::rules::{Color, GameRules, Variant};
use pigeon::service::{Clock, ManualClock, RateLimit, Service, SystemClock};
use pigeon::store::{DatabaseUrl, Store};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::{error, info};
use tracing_subscriber::EnvFilter;

/// Pigeon plays Chak, Shakti, Chad and Chesscala by correspondence in chat.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Copy the SQLite game database to FILE safely while Pigeon runs (a consistent
    /// snapshot). A PostgreSQL database is backed up with pg_dump.
    Backup {
        /// Where to write the copy; must not exist yet.
        file: PathBuf,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Copy every game, player, rating and setting to another, empty database (such as from
    /// SQLite to PostgreSQL), count the rows on both sides and replay every game there.
    MigrateDb {
        /// The database to copy: sqlite://FILE, a file path or postgres://…
        #[arg(long)]
        from: String,
        /// The new, empty database: postgres://… or sqlite://FILE.
        #[arg(long)]
        to: String,
    },
    /// Play in the terminal: each line is `name: text`, as if user `name` wrote `text` in a
    /// channel (`#channel name: text` for another channel).
    Console {
        #[command(flatten)]
        db: DbArgs,
        /// Where board pictures are written.
        #[arg(long, default_value = "boards")]
        out: PathBuf,
        /// Read the lines from this file instead of the terminal.
        #[arg(long)]
        script: Option<PathBuf>,
        /// Run as if at this instant (such as 2026-12-01T10:00:00Z): the clock then stands
        /// still but for `wait` lines, and what is stored uses it. Default: the real time.
        #[arg(long, value_parser = parse_instant)]
        now: Option<i64>,
        #[command(flatten)]
        web: WebArgs,
    },
    /// Run the Discord bot (configured from DISCORD_* variables; see .env.example), until
    /// SIGINT or SIGTERM.
    #[cfg(feature = "discord")]
    Discord {
        #[command(flatten)]
        db: DbArgs,
        #[command(flatten)]
        discord: DiscordArgs,
    },
    /// Run the Matrix bot (configured from MATRIX_* variables; see .env.example).
    #[cfg(feature = "matrix")]
    Matrix {
        #[command(flatten)]
        db: DbArgs,
        #[command(flatten)]
        matrix: MatrixArgs,
    },
    /// Run every configured chat bot (Discord when DISCORD_TOKEN is set, Matrix when
    /// MATRIX_HOMESERVER is set) in one process on one game database, until SIGINT or SIGTERM.
    Serve {
        #[command(flatten)]
        db: DbArgs,
        #[command(flatten)]
        discord: DiscordArgs,
        #[command(flatten)]
        matrix: MatrixArgs,
        /// Run as if the time now were this instant (such as 2026-12-01T10:00:00Z), the clock
        /// running on from there, and store times by it: for rehearsing on a copy of a
        /// database. Default: the real time.
        #[arg(long, value_parser = parse_instant)]
        now: Option<i64>,
        #[command(flatten)]
        web: WebArgs,
    },
    /// Print the legal moves of a position, sorted, separated by ", ". Without POSITION, read
    /// positions from standard input, one per line, and print one line for each.
    Moves {
        /// The game: chak, shakti, chad or chesscala, or chesscala-nodraws (the rule without
        /// draws).
        game: GameRules,
        /// A position text; `start` means the start position.
        position: Option<String>,
    },
    /// Count the leaves of the legal move tree to DEPTH.
    Perft {
        /// The game, or chesscala-nodraws.
        game: GameRules,
        /// How many plies (Chesscala: turns) deep.
        depth: u32,
        /// A position text; `start` (the default) means the start position.
        #[arg(default_value = "start")]
        position: String,
        /// First print one line `<move>: <count>` per legal move.
        #[arg(long)]
        divide: bool,
    },
    /// Pair the next round of a tournament given as a TRF file, and print it as bbpPairings
    /// does: the number of pairs, then one pair a line `WHITE BLACK` by start rank, the bye as
    /// `N 0`.
    Pair {
        /// The pairing system: `dutch`, the FIDE Dutch system (C.04.3, 2025 rules).
        system: PairingSystem,
        /// The tournament so far, in TRF (TRF-16 or TRF-2026).
        file: PathBuf,
    },
    /// Apply moves to a position and print the resulting position text.
    Play {
        /// The game, or chesscala-nodraws.
        game: GameRules,
        /// A position text, or `start`.
        position: String,
        /// The moves, one argument each, in any notation the game accepts.
        moves: Vec<String>,
    },
    /// Draw a position as a PNG picture.
    Render {
        /// The game.
        game: Variant,
        /// A position text; `start` (the default) means the start position.
        #[arg(default_value = "start")]
        position: String,
        /// Highlight this move: if it is legal in POSITION, draw the position after it;
        /// otherwise take it as the move that led to POSITION.
        #[arg(long, value_name = "MOVE")]
        last: Option<String>,
        /// The side the board is seen from (default: the side to move).
        #[arg(long)]
        side: Option<Side>,
        /// The player of White, for a caption.
        #[arg(long, value_name = "NAME")]
        white: Option<String>,
        /// The player of Black (Green in Chak), for a caption.
        #[arg(long, value_name = "NAME")]
        black: Option<String>,
        /// The deadline for the player to move, for a caption.
        #[arg(long, value_name = "TEXT")]
        deadline: Option<String>,
        /// Where to write the PNG.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Speak the UCI protocol on standard input and output (Fairy-Stockfish's conventions for
    /// variants: `setoption name UCI_Variant value chak`), for GUIs and match runners.
    Uci {
        /// Play at this chat level's limits (1-5) instead of the limits `go` gives.
        #[arg(long)]
        level: Option<Level>,
    },
    /// Play two UCI engines against each other over the stored openings, each opening with
    /// colours swapped; print the score, the Elo difference and an SPRT verdict.
    Match {
        /// An engine's command, program and arguments split at spaces (give it twice; the
        /// score is the first one's).
        #[arg(long = "engine", required = true, num_args = 1)]
        engines: Vec<String>,
        /// The game.
        #[arg(long, default_value = "chak")]
        variant: Variant,
        /// How many games (rounded up to an even number).
        #[arg(long, default_value_t = 20)]
        games: usize,
        /// Each move: search this many nodes.
        #[arg(long, group = "limit")]
        nodes: Option<u64>,
        /// Each move: search this deep.
        #[arg(long, group = "limit")]
        depth: Option<u32>,
        /// Each move: think this many milliseconds.
        #[arg(long, group = "limit")]
        movetime: Option<u64>,
        /// A clock per side: SECONDS[+INCREMENT], such as 10+0.1.
        #[arg(long, group = "limit")]
        tc: Option<String>,
        /// Draw games still running after this many plies.
        #[arg(long)]
        max_plies: Option<usize>,
        /// Stop at the verdict of an SPRT of H0 "elo0" against H1 "elo1", such as 0,10.
        #[arg(long, value_name = "ELO0,ELO1")]
        sprt: Option<String>,
        /// Write the games to this file as game records.
        #[arg(long, value_name = "FILE")]
        records: Option<PathBuf>,
        /// Games played at once.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
    },
    /// Draw a game played from the start position as an animated GIF.
    Gif {
        /// The game.
        game: Variant,
        /// The moves, one argument each.
        #[arg(required = true)]
        moves: Vec<String>,
        /// Where to write the GIF.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
}

/// How the Discord bot connects, from the environment.
#[cfg_attr(not(feature = "discord"), allow(dead_code))]
#[derive(Debug, clap::Args)]
struct DiscordArgs {
    /// The bot token from the Discord developer portal (environment only).
    #[arg(
        long = "discord-token",
        env = "DISCORD_TOKEN",
        hide = true,
        hide_env_values = true
    )]
    token: Option<Secret>,
    /// Register the slash commands in this server only (they show at once); globally
    /// without (Discord may take up to an hour to show them).
    #[arg(long = "discord-guild-id", env = "DISCORD_GUILD_ID")]
    guild_id: Option<u64>,
    /// Ask for the Message Content intent, so that bare moves typed in a game's thread are
    /// played (enable it in the developer portal first).
    #[arg(
        long = "discord-message-content",
        env = "DISCORD_MESSAGE_CONTENT",
        default_value_t = false
    )]
    message_content: bool,
    /// Send Discord's HTTP requests to this base URL instead, such as a rate-limiting proxy
    /// (http://127.0.0.1:3000); the proxy then keeps to Discord's rate limits.
    #[arg(long = "discord-api-base", env = "DISCORD_API_BASE")]
    api_base: Option<String>,
    /// Run only these shards of the bot, FIRST-LAST/TOTAL (0-3/8: shards 0 to 3 of 8), to
    /// split a large bot over processes; unset: as many shards as Discord recommends, all in
    /// this process.
    #[arg(long = "discord-shards", env = "DISCORD_SHARDS")]
    shards: Option<pigeon::config::ShardRange>,
}

#[cfg(feature = "discord")]
impl DiscordArgs {
    /// The bot's config, or `None` when no token is set.
    fn config(self) -> Option<pigeon::adapters::discord::DiscordConfig> {
        let token = self.token?;
        Some(pigeon::adapters::discord::DiscordConfig {
            guild_id: self.guild_id,
            message_content: self.message_content,
            api_base: self.api_base,
            shards: self.shards,
            ..pigeon::adapters::discord::DiscordConfig::new(token)
        })
    }
}

/// How the Matrix bot connects, from the environment.
#[cfg_attr(not(feature = "matrix"), allow(dead_code))]
#[derive(Debug, clap::Args)]
struct MatrixArgs {
    /// The homeserver's URL, such as https://matrix.example.org.
    #[arg(long = "matrix-homeserver", env = "MATRIX_HOMESERVER")]
    homeserver: Option<String>,
    /// The bot's account, @pigeon:example.org or just pigeon.
    #[arg(long = "matrix-user", env = "MATRIX_USER")]
    user: Option<String>,
    /// The account's password, for the first login only (environment only).
    #[arg(
        long = "matrix-password",
        env = "MATRIX_PASSWORD",
        hide = true,
        hide_env_values = true
    )]
    password: Option<Secret>,
    /// The folder of the bot's Matrix state, keys and login [default: <db>-matrix beside the
    /// game database].
    #[arg(long = "matrix-store", env = "MATRIX_STORE")]
    store: Option<PathBuf>,
    /// The command prefix in rooms.
    #[arg(
        long = "matrix-prefix",
        env = "MATRIX_PREFIX",
        default_value = "!pigeon"
    )]
    prefix: String,
    /// Join rooms only on invites from these servers (comma-separated; default: any).
    #[arg(
        long = "matrix-allowed-servers",
        env = "MATRIX_ALLOWED_SERVERS",
        default_value = ""
    )]
    allowed_servers: String,
    /// Messages older than this many days are skipped after a long stop.
    #[arg(
        long = "matrix-backlog-days",
        env = "MATRIX_BACKLOG_DAYS",
        default_value_t = 7
    )]
    backlog_days: i64,
    /// The passphrase that encrypts the bot's Matrix store (keys and state) on disk
    /// (environment only).
    #[arg(
        long = "matrix-store-passphrase",
        env = "MATRIX_STORE_PASSPHRASE",
        hide = true,
        hide_env_values = true
    )]
    store_passphrase: Option<Secret>,
    /// The account's recovery key, to take over its encryption identity on a new device
    /// (environment only).
    #[arg(
        long = "matrix-recovery-key",
        env = "MATRIX_RECOVERY_KEY",
        hide = true,
        hide_env_values = true
    )]
    recovery_key: Option<Secret>,
}

#[cfg(feature = "matrix")]
impl MatrixArgs {
    /// The bot's config, or `None` when no homeserver is set.
    fn config(self, db: &DatabaseUrl) -> Result<Option<MatrixConfig>, String> {
        let Some(homeserver) = self.homeserver else {
            return Ok(None);
        };
        let user = self
            .user
            .ok_or("MATRIX_USER is not set: name the bot's account, such as @pigeon:example.org")?;
        let store = self.store.unwrap_or_else(|| match db {
            DatabaseUrl::Sqlite(db) => {
                let stem = db.file_stem().map_or_else(
                    || String::from("pigeon"),
                    |stem| stem.to_string_lossy().into_owned(),
                );
                db.with_file_name(format!("{stem}-matrix"))
            }
            DatabaseUrl::Postgres(_) => PathBuf::from("pigeon-matrix"),
        });
        Ok(Some(MatrixConfig {
            homeserver,
            user,
            password: self.password,
            store,
            prefix: self.prefix,
            allowed_servers: matrix::parse_servers(&self.allowed_servers),
            backlog_days: self.backlog_days,
            store_passphrase: self.store_passphrase,
            recovery_key: self.recovery_key,
            timeline_limit: matrix::DEFAULT_TIMELINE_LIMIT,
        }))
    }
}

/// Which game database to use: `DATABASE_URL` (a `postgres://` or `sqlite://` URL) or
/// `PIGEON_DB` (a SQLite file), at most one of them.
#[derive(Debug, clap::Args)]
struct DbArgs {
    /// The game database's URL: postgres://USER:PASSWORD@HOST/DATABASE (or postgresql://),
    /// sqlite://FILE or a file path [default: the SQLite file pigeon.db].
    #[arg(long = "database-url", env = "DATABASE_URL", hide_env_values = true)]
    url: Option<String>,
    /// The game database as a SQLite file, created on first start [default: pigeon.db].
    #[arg(long, env = "PIGEON_DB")]
    db: Option<PathBuf>,
}

impl DbArgs {
    /// The database named, SQLite's `pigeon.db` when none is.
    fn url(&self) -> Result<DatabaseUrl, String> {
        match (&self.url, &self.db) {
            (Some(_), Some(_)) => Err(String::from(
                "both DATABASE_URL (--database-url) and PIGEON_DB (--db) name a game \
                 database: set one of them",
            )),
            (Some(url), None) => DatabaseUrl::parse(url).map_err(|e| e.to_string()),
            (None, Some(path)) => Ok(DatabaseUrl::Sqlite(path.clone())),
            (None, None) => Ok(DatabaseUrl::Sqlite(PathBuf::from("pigeon.db"))),
        }
    }
}

/// The game pages: `PIGEON_HTTP` turns the web server on; `PIGEON_PUBLIC_URL` is the address
/// the links in chat use.
#[derive(Debug, clap::Args)]
struct WebArgs {
    /// Serve the game pages on this address and port, such as 127.0.0.1:8080 [default: no
    /// web server].
    #[arg(long = "http", env = "PIGEON_HTTP")]
    http: Option<std::net::SocketAddr>,
    /// The address the game pages are reached at, for the links in chat, such as
    /// https://pigeon.example.org [default: http://<PIGEON_HTTP>].
    #[arg(long = "public-url", env = "PIGEON_PUBLIC_URL")]
    public_url: Option<String>,
}

impl WebArgs {
    /// No web server (`pigeon discord`, `pigeon matrix`: `pigeon serve` runs one).
    fn none() -> WebArgs {
        WebArgs {
            http: None,
            public_url: None,
        }
    }

    /// The listener of the web server and its public address, when one is asked for.
    async fn bind(&self) -> Result<Option<(tokio::net::TcpListener, String)>, String> {
        let Some(address) = self.http else {
            return Ok(None);
        };
        let public = match &self.public_url {
            Some(url) if url.starts_with("http://") || url.starts_with("https://") => url.clone(),
            Some(url) => {
                return Err(format!(
                    "PIGEON_PUBLIC_URL \"{url}\" is no web address: write it like \
                     https://pigeon.example.org"
                ));
            }
            None => format!("http://{address}"),
        };
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| format!("cannot serve the game pages on {address}: {e}"))?;
        Ok(Some((listener, public)))
    }
}

/// Opens the game database `url` names; the error names the database (never its password).
async fn open_store(url: &DatabaseUrl) -> Result<Store, String> {
    let store = match url {
        DatabaseUrl::Sqlite(path) => Store::open(path).await,
        DatabaseUrl::Postgres(postgres) => Store::connect(postgres).await,
    };
    store.map_err(|e| format!("{url}: {}", redacted(&e)))
}

/// A pairing system on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum PairingSystem {
    /// The FIDE Dutch system (C.04.3, 2025 rules).
    Dutch,
}

/// A side on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Side {
    White,
    /// Black, or Green in Chak.
    #[value(alias = "green")]
    Black,
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
        Command::Gif {
            game,
            moves,
            output,
        } => {
            cli::gif(game, &moves).and_then(|gif| std::fs::write(&output, gif).map_err(Into::into))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

/// The arguments of `pigeon match`.
struct MatchRequest {
    engines: Vec<String>,
    variant: Variant,
    games: usize,
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
            limit,
            max_plies: request.max_plies,
            sprt,
            concurrency: request.concurrency,
        };
        let mut log = io::stdout();
        let report = arena::play_match(&config, &mut log).map_err(|e| e.to_string())?;
        for line in report.summary(config.sprt.as_ref()) {
            println!("{line}");
        }
        if let Some(path) = &request.records {
            let text: Vec<String> = report.games.iter().map(|g| g.export(&config)).collect();
            std::fs::write(path, text.join("\n\n") + "\n")
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
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

/// Reads `--now`.
fn parse_instant(text: &str) -> Result<i64, String> {
    pigeon::service::clock::parse_utc(text)
        .ok_or_else(|| format!("\"{text}\" is no instant; write it like 2026-12-01T10:00:00Z"))
}

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
