//! The `pigeon` command: the chat bots and the command-line tools.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use pigeon::adapters::console;
use pigeon::cli;
use pigeon::rules::{Color, Variant};
use pigeon::service::{RateLimit, Service, SystemClock};
use pigeon::store::Store;
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
    /// Copy the game database to FILE safely while Pigeon runs (a consistent snapshot).
    Backup {
        /// Where to write the copy; must not exist yet.
        file: PathBuf,
        /// The game database.
        #[arg(long, env = "PIGEON_DB", default_value = "pigeon.db")]
        db: PathBuf,
    },
    /// Play in the terminal: each line is `name: text`, as if user `name` wrote `text` in a
    /// channel (`#channel name: text` for another channel).
    Console {
        /// The game database (created on first start).
        #[arg(long, env = "PIGEON_DB", default_value = "pigeon.db")]
        db: PathBuf,
        /// Where board pictures are written.
        #[arg(long, default_value = "boards")]
        out: PathBuf,
        /// Read the lines from this file instead of the terminal.
        #[arg(long)]
        script: Option<PathBuf>,
    },
    /// Run the Discord bot until Ctrl-C (or SIGTERM).
    #[cfg(feature = "discord")]
    Discord {
        /// The bot token from the Discord developer portal.
        #[arg(long, env = "DISCORD_TOKEN", hide_env_values = true)]
        token: pigeon::config::Secret,
        /// Register the slash commands in this server only (they show at once); globally
        /// without (Discord may take up to an hour to show them).
        #[arg(long, env = "DISCORD_GUILD_ID")]
        guild_id: Option<u64>,
        /// Ask for the Message Content intent, so that bare moves typed in a game's thread
        /// are played (enable it in the developer portal first).
        #[arg(long, env = "DISCORD_MESSAGE_CONTENT", default_value_t = false)]
        message_content: bool,
        /// The game database (created on first start).
        #[arg(long, env = "PIGEON_DB", default_value = "pigeon.db")]
        db: PathBuf,
    },
    /// Print the legal moves of a position, sorted, separated by ", ". Without POSITION, read
    /// positions from standard input, one per line, and print one line for each.
    Moves {
        /// The game: chak, shakti, chad or chesscala.
        game: Variant,
        /// A position text; `start` means the start position.
        position: Option<String>,
    },
    /// Count the leaves of the legal move tree to DEPTH.
    Perft {
        /// The game.
        game: Variant,
        /// How many plies (Chesscala: turns) deep.
        depth: u32,
        /// A position text; `start` (the default) means the start position.
        #[arg(default_value = "start")]
        position: String,
        /// First print one line `<move>: <count>` per legal move.
        #[arg(long)]
        divide: bool,
    },
    /// Apply moves to a position and print the resulting position text.
    Play {
        /// The game.
        game: Variant,
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
        Command::Console { db, out, script } => return run_async(console_main(db, out, script)),
        Command::Backup { file, db } => return run_async(backup_main(db, file)),
        #[cfg(feature = "discord")]
        Command::Discord {
            token,
            guild_id,
            message_content,
            db,
        } => {
            let config = pigeon::adapters::discord::DiscordConfig {
                guild_id,
                message_content,
                ..pigeon::adapters::discord::DiscordConfig::new(token)
            };
            return run_async(discord_main(db, config));
        }
        _ => {}
    }
    let stdout = io::stdout();
    let result = match args.command {
        Command::Console { .. } | Command::Backup { .. } => Ok(()),
        #[cfg(feature = "discord")]
        Command::Discord { .. } => Ok(()),
        Command::Moves { game, position } => {
            cli::moves(game, position.as_deref(), io::stdin().lock(), stdout.lock())
        }
        Command::Perft {
            game,
            depth,
            position,
            divide,
        } => cli::perft(game, depth, &position, divide, stdout.lock()),
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

async fn console_main(db: PathBuf, out: PathBuf, script: Option<PathBuf>) -> RunResult {
    init_logs("warn");
    let store = Store::open(&db)
        .await
        .map_err(|e| format!("{}: {e}", db.display()))?;
    let service = Service::new(store.clone(), Arc::new(SystemClock));
    let stdout = tokio::io::stdout();
    let result = match script {
        Some(path) => {
            let file = tokio::fs::File::open(&path)
                .await
                .map_err(|e| format!("{}: {e}", path.display()))?;
            console::run(&service, tokio::io::BufReader::new(file), stdout, &out).await
        }
        None => {
            eprintln!(
                "Pigeon console on {}. Type lines like `alice: challenge @bob chak`; Ctrl-D ends.",
                db.display()
            );
            console::run(
                &service,
                tokio::io::BufReader::new(tokio::io::stdin()),
                stdout,
                &out,
            )
            .await
        }
    };
    store.close().await;
    result.map_err(|e| e.to_string())
}

async fn backup_main(db: PathBuf, file: PathBuf) -> RunResult {
    init_logs("warn");
    if !db.exists() {
        return Err(format!("{}: no such database", db.display()));
    }
    if file.exists() {
        return Err(format!(
            "{} exists already; name a new file",
            file.display()
        ));
    }
    let store = Store::open(&db)
        .await
        .map_err(|e| format!("{}: {e}", db.display()))?;
    let result = store.backup(&file).await;
    store.close().await;
    result.map_err(|e| format!("backing up to {}: {e}", file.display()))?;
    println!("Backed up {} to {}.", db.display(), file.display());
    Ok(())
}

/// Turns true on Ctrl-C or SIGTERM, for the bots to stop cleanly.
#[cfg(feature = "discord")]
fn shutdown_signal() -> tokio::sync::watch::Receiver<bool> {
    let (sender, receiver) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
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
        let _ = tokio::signal::ctrl_c().await;
        let _ = sender.send(true);
    });
    receiver
}

#[cfg(feature = "discord")]
async fn discord_main(db: PathBuf, config: pigeon::adapters::discord::DiscordConfig) -> RunResult {
    init_logs("info");
    let store = Store::open(&db)
        .await
        .map_err(|e| format!("{}: {e}", db.display()))?;
    let service =
        Service::new(store.clone(), Arc::new(SystemClock)).with_rate_limit(RateLimit::CHAT);
    let result = pigeon::adapters::discord::run(service, config, shutdown_signal()).await;
    store.close().await;
    result.map_err(|e| e.to_string())
}
