//! The `pigeon` command: the chat bots and the command-line tools.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use pigeon::cli;
use pigeon::rules::Variant;

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
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
