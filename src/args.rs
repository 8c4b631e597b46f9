//! The `pigeon` command's arguments: its subcommands and their options, and how the bot
//! options become each platform's configuration. (Part of the binary, not the library.)

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
#[cfg(feature = "matrix")]
use pigeon::adapters::matrix::{self, MatrixConfig};
use pigeon::config::Secret;
use pigeon::engine::Level;
use pigeon::rules::{GameRules, Variant};
use pigeon::store::DatabaseUrl;

/// Pigeon plays Chak, Shakti, Chad and Chesscala by correspondence in chat.
#[derive(Debug, Parser)]
#[command(version, about)]
pub(crate) struct Args {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
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
        #[arg(allow_hyphen_values = true)]
        position: Option<String>,
    },
    /// Count the leaves of the legal move tree to DEPTH.
    Perft {
        /// The game, or chesscala-nodraws.
        game: GameRules,
        /// How many plies (Chesscala: turns) deep.
        depth: u32,
        /// A position text; `start` (the default) means the start position.
        #[arg(default_value = "start", allow_hyphen_values = true)]
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
        #[arg(allow_hyphen_values = true)]
        position: String,
        /// The moves, one argument each, in any notation the game accepts.
        moves: Vec<String>,
    },
    /// Draw a position as a PNG picture.
    Render {
        /// The game.
        game: Variant,
        /// A position text; `start` (the default) means the start position.
        #[arg(default_value = "start", allow_hyphen_values = true)]
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
        /// Begin at this game, numbered as in the whole match, to finish one that was stopped:
        /// each game keeps its opening and colours.
        #[arg(
            long,
            default_value_t = 1,
            value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..)
        )]
        first_game: usize,
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
        /// Stop at the verdict of an SPRT of H0 "elo0" against H1 "elo1", such as 0,10 or -5,5.
        #[arg(long, value_name = "ELO0,ELO1", allow_hyphen_values = true)]
        sprt: Option<String>,
        /// Write the games to this file as game records.
        #[arg(long, value_name = "FILE")]
        records: Option<PathBuf>,
        /// Games played at once.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
    },
    /// Fit a game's evaluation to self-play games: `tune selfplay` plays them and writes their
    /// quiet positions, `tune fit` fits the evaluation's weights to those positions and prints
    /// the weights file (src/engine/terms/<game>_weights.rs).
    Tune {
        #[command(subcommand)]
        step: TuneStep,
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

/// The steps of `pigeon tune`.
#[derive(Debug, Subcommand)]
pub(crate) enum TuneStep {
    /// Play the engine against itself and write each game's quiet positions with its result,
    /// one `FEN;result` a line (result for White: 1, 0.5 or 0).
    Selfplay {
        /// The game.
        #[arg(long, default_value = "chak")]
        variant: Variant,
        /// How many games.
        #[arg(long, default_value_t = 1_000)]
        games: usize,
        /// Nodes searched a move.
        #[arg(long, default_value_t = 4_000)]
        nodes: u64,
        /// Random plies after each stored opening, so that no two games are alike.
        #[arg(long, default_value_t = 4)]
        random_plies: usize,
        /// Games played at once.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// The seed of the random plies.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where to write the positions.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
    },
    /// Fit the weights to positions written by `tune selfplay`, starting from the current
    /// weights, and print the weights file.
    Fit {
        /// The positions.
        file: PathBuf,
        /// The game the positions are of.
        #[arg(long, default_value = "chak")]
        variant: Variant,
        /// Steps of the optimiser.
        #[arg(long, default_value_t = 600)]
        iterations: usize,
        /// How far one step may move a weight, in points.
        #[arg(long, default_value_t = 1.0)]
        rate: f64,
        /// The pull of each weight towards its starting value: the mean squared error grows by
        /// this much per point squared a weight moves.
        #[arg(long, default_value_t = 1e-9)]
        pull: f64,
        /// Where to write the weights file (default: standard output).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

/// How the Discord bot connects, from the environment.
#[cfg_attr(not(feature = "discord"), allow(dead_code))]
#[derive(Debug, clap::Args)]
pub(crate) struct DiscordArgs {
    /// The bot token from the Discord developer portal (environment only).
    #[arg(
        long = "discord-token",
        env = "DISCORD_TOKEN",
        hide = true,
        hide_env_values = true
    )]
    pub(crate) token: Option<Secret>,
    /// Register the slash commands in this server only (they show at once); globally
    /// without (Discord may take up to an hour to show them).
    #[arg(long = "discord-guild-id", env = "DISCORD_GUILD_ID")]
    pub(crate) guild_id: Option<u64>,
    /// Ask for the Message Content intent, so that bare moves typed in a game's thread are
    /// played (enable it in the developer portal first).
    #[arg(
        long = "discord-message-content",
        env = "DISCORD_MESSAGE_CONTENT",
        default_value_t = false
    )]
    pub(crate) message_content: bool,
    /// Send Discord's HTTP requests to this base URL instead, such as a rate-limiting proxy
    /// (http://127.0.0.1:3000); the proxy then keeps to Discord's rate limits.
    #[arg(long = "discord-api-base", env = "DISCORD_API_BASE")]
    pub(crate) api_base: Option<String>,
    /// Run only these shards of the bot, FIRST-LAST/TOTAL (0-3/8: shards 0 to 3 of 8), to
    /// split a large bot over processes; unset: as many shards as Discord recommends, all in
    /// this process.
    #[arg(long = "discord-shards", env = "DISCORD_SHARDS")]
    pub(crate) shards: Option<pigeon::config::ShardRange>,
}

#[cfg(feature = "discord")]
impl DiscordArgs {
    /// The bot's config, or `None` when no token is set.
    pub(crate) fn config(self) -> Option<pigeon::adapters::discord::DiscordConfig> {
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
pub(crate) struct MatrixArgs {
    /// The homeserver's URL, such as https://matrix.example.org.
    #[arg(long = "matrix-homeserver", env = "MATRIX_HOMESERVER")]
    pub(crate) homeserver: Option<String>,
    /// The bot's account, @pigeon:example.org or just pigeon.
    #[arg(long = "matrix-user", env = "MATRIX_USER")]
    pub(crate) user: Option<String>,
    /// The account's password, for the first login only (environment only).
    #[arg(
        long = "matrix-password",
        env = "MATRIX_PASSWORD",
        hide = true,
        hide_env_values = true
    )]
    pub(crate) password: Option<Secret>,
    /// The folder of the bot's Matrix state, keys and login [default: <db>-matrix beside the
    /// game database].
    #[arg(long = "matrix-store", env = "MATRIX_STORE")]
    pub(crate) store: Option<PathBuf>,
    /// The command prefix in rooms.
    #[arg(
        long = "matrix-prefix",
        env = "MATRIX_PREFIX",
        default_value = "!pigeon"
    )]
    pub(crate) prefix: String,
    /// Join rooms only on invites from these servers (comma-separated; default: any).
    #[arg(
        long = "matrix-allowed-servers",
        env = "MATRIX_ALLOWED_SERVERS",
        default_value = ""
    )]
    pub(crate) allowed_servers: String,
    /// Messages older than this many days are skipped after a long stop.
    #[arg(
        long = "matrix-backlog-days",
        env = "MATRIX_BACKLOG_DAYS",
        default_value_t = 7
    )]
    pub(crate) backlog_days: i64,
    /// The passphrase that encrypts the bot's Matrix store (keys and state) on disk
    /// (environment only).
    #[arg(
        long = "matrix-store-passphrase",
        env = "MATRIX_STORE_PASSPHRASE",
        hide = true,
        hide_env_values = true
    )]
    pub(crate) store_passphrase: Option<Secret>,
    /// The account's recovery key, to take over its encryption identity on a new device
    /// (environment only).
    #[arg(
        long = "matrix-recovery-key",
        env = "MATRIX_RECOVERY_KEY",
        hide = true,
        hide_env_values = true
    )]
    pub(crate) recovery_key: Option<Secret>,
}

#[cfg(feature = "matrix")]
impl MatrixArgs {
    /// The bot's config, or `None` when no homeserver is set.
    pub(crate) fn config(self, db: &DatabaseUrl) -> Result<Option<MatrixConfig>, String> {
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
pub(crate) struct DbArgs {
    /// The game database's URL: postgres://USER:PASSWORD@HOST/DATABASE (or postgresql://),
    /// sqlite://FILE or a file path [default: the SQLite file pigeon.db].
    #[arg(long = "database-url", env = "DATABASE_URL", hide_env_values = true)]
    pub(crate) url: Option<String>,
    /// The game database as a SQLite file, created on first start [default: pigeon.db].
    #[arg(long, env = "PIGEON_DB")]
    pub(crate) db: Option<PathBuf>,
}

impl DbArgs {
    /// The database named, SQLite's `pigeon.db` when none is.
    pub(crate) fn url(&self) -> Result<DatabaseUrl, String> {
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
pub(crate) struct WebArgs {
    /// Serve the game pages on this address and port, such as 127.0.0.1:8080 [default: no
    /// web server].
    #[arg(long = "http", env = "PIGEON_HTTP")]
    pub(crate) http: Option<std::net::SocketAddr>,
    /// The address the game pages are reached at, for the links in chat, such as
    /// https://pigeon.example.org [default: http://<PIGEON_HTTP>].
    #[arg(long = "public-url", env = "PIGEON_PUBLIC_URL")]
    pub(crate) public_url: Option<String>,
}

impl WebArgs {
    /// No web server (`pigeon discord`, `pigeon matrix`: `pigeon serve` runs one).
    #[cfg(any(feature = "discord", feature = "matrix"))]
    pub(crate) fn none() -> WebArgs {
        WebArgs {
            http: None,
            public_url: None,
        }
    }

    /// The listener of the web server and its public address, when one is asked for.
    pub(crate) async fn bind(&self) -> Result<Option<(tokio::net::TcpListener, String)>, String> {
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

/// A pairing system on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum PairingSystem {
    /// The FIDE Dutch system (C.04.3, 2025 rules).
    Dutch,
}

/// A side on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Side {
    White,
    /// Black, or Green in Chak.
    #[value(alias = "green")]
    Black,
}

/// Reads `--now`.
fn parse_instant(text: &str) -> Result<i64, String> {
    pigeon::service::clock::parse_utc(text)
        .ok_or_else(|| format!("\"{text}\" is no instant; write it like 2026-12-01T10:00:00Z"))
}
