//! The `pigeon` command: the chat bots and the command-line tools.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use pigeon::cli;
use pigeon::rules::{Color, Variant};

/// Pigeon plays Chak, Shakti, Chad and Chesscala by correspondence in chat.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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
    let args = Args::parse();
    let stdout = io::stdout();
    let result = match args.command {
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
