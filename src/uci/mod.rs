//! `pigeon uci`: the engine behind the UCI protocol, with Fairy-Stockfish's conventions for
//! variants (`setoption name UCI_Variant value chak`), so match runners and GUIs that drive
//! Fairy-Stockfish drive Pigeon too.
//!
//! The input is read on the caller's thread; each `go` searches on a thread of its own, so
//! `stop`, `isready` and `quit` are answered while it thinks. Positions and moves are written
//! in Pigeon's interchange notation (for Chak, Fairy-Stockfish's), with [`wire`] spelling a
//! move as one word. Every line that is not understood is answered with an `info string`
//! saying why; nothing the front end sends can make the engine panic or print an illegal move.

mod command;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

pub use self::command::{BadLine, Command, Go, parse};
use crate::engine::{self, Control, Level, Limits, Progress, Table};
use crate::rules::{Color, Record, Variant, VariantPosition};

/// The largest `Noise` option: an error of up to ten pawns.
const MAX_NOISE: i32 = 1_000;
/// The largest `Blunders` option: every move at random.
const MAX_BLUNDERS: u16 = 1_000;

/// A move text as one word on the wire: the interchange notation's spaces (a Chesscala turn's
/// two moves, a Shakti jump's removed tile) become commas.
#[must_use]
pub fn wire(text: &str) -> String {
    text.replace(' ', ",")
}

/// A move word from the wire back in the interchange notation.
#[must_use]
pub fn unwire(word: &str) -> String {
    word.replace(',', " ")
}

/// Where the engine's lines go: shared by the reading thread and the search, one whole line at
/// a time, flushed at once.
#[derive(Clone)]
struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    fn line(&self, text: &str) {
        let mut out = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // A front end that went away cannot be told anything; the input's end stops us.
        let _ = writeln!(out, "{text}").and_then(|()| out.flush());
    }

    fn info(&self, text: &str) {
        self.line(&format!("info string {text}"));
    }
}

/// A search running on its own thread.
struct Running {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

/// The engine's state between commands.
struct Engine {
    out: Out,
    variant: Variant,
    record: Record,
    table: Arc<Mutex<Table>>,
    hash_mb: usize,
    level: Option<Level>,
    /// The `Noise` option: how far off the search judges positions, in place of the level's.
    noise: Option<i32>,
    /// The `Blunders` option: the chance (thousandths) of a random move, in place of the
    /// level's.
    blunders: Option<u16>,
    running: Option<Running>,
}

/// Runs the protocol: reads commands from `input` until `quit` or its end, writes answers to
/// `output`. `level` plays at a chat level's limits instead of the `go` command's own.
///
/// # Errors
/// Reading the input failed.
pub fn run(
    input: impl BufRead,
    output: impl Write + Send + 'static,
    level: Option<Level>,
) -> io::Result<()> {
    let variant = Variant::Chak;
    let mut engine = Engine {
        out: Out(Arc::new(Mutex::new(Box::new(output)))),
        variant,
        record: Record::new(VariantPosition::start(variant)),
        table: Arc::new(Mutex::new(Table::new(Table::DEFAULT_MB))),
        hash_mb: Table::DEFAULT_MB,
        level,
        noise: None,
        blunders: None,
        running: None,
    };
    for line in input.lines() {
        let line = line?;
        match parse(&line) {
            Ok(Some(Command::Quit)) => break,
            Ok(Some(command)) => engine.handle(command),
            Ok(None) => {}
            Err(BadLine(why)) => engine.out.info(&why),
        }
    }
    engine.finish_search();
    Ok(())
}

impl Engine {
    fn handle(&mut self, command: Command) {
        match command {
            Command::Uci => self.identify(),
            Command::IsReady => self.out.line("readyok"),
            Command::NewGame => {
                self.finish_search();
                self.table().clear();
            }
            Command::SetOption { name, value } => {
                self.finish_search();
                if let Err(why) = self.set_option(&name, value.as_deref()) {
                    self.out.info(&why);
                }
            }
            Command::Position { fen, moves } => {
                self.finish_search();
                match self.position(fen.as_deref(), &moves) {
                    Ok(record) => self.record = record,
                    Err(why) => self.out.info(&format!("{why}; the position is unchanged")),
                }
            }
            Command::Go(go) => self.go(&go),
            Command::Stop => self.finish_search(),
            Command::Ignored | Command::Quit => {}
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn identify(&self) {
        let variants: String = Variant::ALL
            .iter()
            .map(|variant| format!(" var {}", variant.key()))
            .collect();
        for line in [
            format!("id name Pigeon {}", env!("CARGO_PKG_VERSION")),
            String::from("id author the Pigeon authors"),
            format!(
                "option name UCI_Variant type combo default {}{variants}",
                Variant::Chak.key()
            ),
            format!(
                "option name Hash type spin default {} min {} max {}",
                Table::DEFAULT_MB,
                Table::MIN_MB,
                Table::MAX_MB
            ),
            String::from("option name Clear Hash type button"),
            String::from("option name Threads type spin default 1 min 1 max 1"),
            format!(
                "option name Level type spin default {} min 0 max {}",
                self.level.map_or(0, Level::number),
                Level::MAX.number()
            ),
            format!("option name Noise type spin default 0 min 0 max {MAX_NOISE}"),
            format!("option name Blunders type spin default 0 min 0 max {MAX_BLUNDERS}"),
            String::from("uciok"),
        ] {
            self.out.line(&line);
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let value = value.map(str::trim).unwrap_or_default();
        match name.to_ascii_lowercase().as_str() {
            "uci_variant" => {
                let variant: Variant = value.parse().map_err(|_| {
                    format!(
                        "UCI_Variant: \"{}\" is none of chak, shakti, chad, chesscala",
                        shown(value)
                    )
                })?;
                self.variant = variant;
                self.record = Record::new(VariantPosition::start(variant));
                self.table().clear();
            }
            "hash" => {
                let megabytes: usize = value
                    .parse()
                    .ok()
                    .filter(|mb| (Table::MIN_MB..=Table::MAX_MB).contains(mb))
                    .ok_or_else(|| {
                        format!(
                            "Hash: \"{}\" is no size from {} to {} (MB)",
                            shown(value),
                            Table::MIN_MB,
                            Table::MAX_MB
                        )
                    })?;
                if megabytes != self.hash_mb {
                    self.hash_mb = megabytes;
                    *self.table() = Table::new(megabytes);
                }
            }
            "clear hash" => self.table().clear(),
            "threads" if value == "1" => {}
            "threads" => return Err(String::from("Threads: this engine searches on one thread")),
            "level" => {
                let number: u8 = value
                    .parse()
                    .map_err(|_| format!("Level: \"{}\" is no number 0 to 5", shown(value)))?;
                let level = match number {
                    0 => None,
                    _ => Some(
                        Level::new(number)
                            .ok_or_else(|| format!("Level: {number} is no number 0 to 5"))?,
                    ),
                };
                if level != self.level {
                    // The table's scores were judged with the old level's noise.
                    self.level = level;
                    self.table().clear();
                }
            }
            "noise" => {
                let noise = setting("Noise", value, MAX_NOISE)?;
                if noise != self.noise {
                    // The table's scores were judged with the old noise.
                    self.noise = noise;
                    self.table().clear();
                }
            }
            "blunders" => self.blunders = setting("Blunders", value, MAX_BLUNDERS)?,
            _ => {
                return Err(format!(
                    "unknown option \"{}\"; options: UCI_Variant, Hash, Clear Hash, Threads, Level, Noise, Blunders",
                    shown(name)
                ));
            }
        }
        Ok(())
    }

    fn position(&self, fen: Option<&str>, moves: &[String]) -> Result<Record, String> {
        let start = match fen {
            None => VariantPosition::start(self.variant),
            Some(text) => VariantPosition::from_text(self.variant, text)
                .map_err(|error| format!("{} position: {error}", self.variant.key()))?,
        };
        let mut record = Record::new(start);
        for (index, word) in moves.iter().enumerate() {
            let text = unwire(word);
            if let Err(error) = record.play(&text) {
                // A player who cannot move passes; front ends may leave the pass out, or
                // write it.
                if record.play_forced_pass().is_none() || record.play(&text).is_err() {
                    return Err(format!("move {} ({}): {error}", index + 1, shown(word)));
                }
            }
        }
        record.play_forced_pass();
        Ok(record)
    }

    fn limits(&self, go: &Go) -> Limits {
        let mut limits = self
            .level
            .map(|level| level.limits(self.variant))
            .unwrap_or_default();
        if let Some(noise) = self.noise {
            limits.noise = noise;
        }
        if let Some(blunders) = self.blunders {
            limits.blunders = blunders;
        }
        if let Some(depth) = go.depth {
            limits.depth = limits.depth.min(depth.max(1));
        }
        if let Some(nodes) = go.nodes {
            limits.nodes = limits.nodes.min(nodes.max(1));
        }
        let clock = match self.record.position().turn() {
            Color::White => (go.wtime, go.winc),
            Color::Black => (go.btime, go.binc),
        };
        let mut cap = |time: Duration, soft: Option<Duration>| {
            limits.time = Some(limits.time.map_or(time, |limit| limit.min(time)));
            limits.soft_time = soft;
        };
        if let Some(movetime) = go.movetime {
            cap(movetime, None);
        } else if let (Some(remaining), increment) = clock {
            let budget =
                Limits::for_clock(remaining, increment.unwrap_or(Duration::ZERO), go.movestogo);
            if let Some(time) = budget.time {
                cap(time, budget.soft_time);
            }
        }
        limits
    }

    fn go(&mut self, go: &Go) {
        if self.running.is_some() {
            self.out
                .info("already searching; send stop first (go is ignored)");
            return;
        }
        let limits = self.limits(go);
        // A plain `go` is as `go infinite`, as the protocol has it.
        let until_stopped = go.infinite
            || (*go
                == Go {
                    infinite: false,
                    ..Go::default()
                }
                && self.level.is_none());
        let stop = Arc::new(AtomicBool::new(false));
        let job = Search {
            out: self.out.clone(),
            record: self.record.clone(),
            table: Arc::clone(&self.table),
            stop: Arc::clone(&stop),
            limits,
            until_stopped,
        };
        match thread::Builder::new()
            .name(String::from("search"))
            .spawn(move || job.run())
        {
            Ok(thread) => self.running = Some(Running { stop, thread }),
            Err(error) => {
                self.out.info(&format!("cannot start the search: {error}"));
                self.out.line("bestmove (none)");
            }
        }
    }

    /// Stops the running search, if any, and waits for its `bestmove`.
    fn finish_search(&mut self) {
        if let Some(running) = self.running.take() {
            running.stop.store(true, Ordering::Relaxed);
            if running.thread.join().is_err() {
                self.out.info("the search failed");
                self.out.line("bestmove (none)");
            }
        }
    }
}

/// One `go`: what the search thread needs.
struct Search {
    out: Out,
    record: Record,
    table: Arc<Mutex<Table>>,
    stop: Arc<AtomicBool>,
    limits: Limits,
    until_stopped: bool,
}

impl Search {
    fn run(self) {
        let position = self.record.position();
        let out = self.out.clone();
        let mut report = |progress: &Progress| out.line(&info_line(progress));
        let choice = {
            let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
            engine::think(
                &self.record,
                &self.limits,
                seed(position),
                &mut table,
                Control {
                    stop: Some(&self.stop),
                    report: Some(&mut report),
                },
            )
        };
        // Under `go infinite` the answer waits for `stop`, even when the search ended (a
        // mate found, the deepest depth reached).
        while self.until_stopped && !self.stop.load(Ordering::Relaxed) {
            thread::sleep(Duration::from_millis(2));
        }
        match choice {
            Some(choice) => self.out.line(&format!(
                "bestmove {}",
                wire(&position.move_text(&choice.mv))
            )),
            None => self.out.line("bestmove (none)"),
        }
    }
}

/// The `info` line of one completed iteration.
fn info_line(progress: &Progress) -> String {
    let millis = progress.elapsed.as_millis().max(1);
    let nps = u128::from(progress.nodes) * 1000 / millis;
    let pv: Vec<String> = progress.pv.iter().map(|text| wire(text)).collect();
    format!(
        "info depth {} seldepth {} score {} nodes {} nps {nps} time {} pv {}",
        progress.depth,
        progress.seldepth,
        progress.score,
        progress.nodes,
        progress.elapsed.as_millis(),
        pv.join(" ")
    )
}

/// The seed of a search: from the position, so the same position gets the same answer.
fn seed(position: &VariantPosition) -> u64 {
    let mut hasher = DefaultHasher::new();
    position.to_text().hash(&mut hasher);
    hasher.finish()
}

/// A word from the input as it is repeated in an explanation: at most 32 characters, without
/// control characters.
/// A spin option from 0 to `max` that stands in for the level's own: `None` for 0.
fn setting<T>(name: &str, value: &str, max: T) -> Result<Option<T>, String>
where
    T: std::str::FromStr + PartialOrd + Default + Copy + std::fmt::Display,
{
    let none = T::default();
    value
        .parse::<T>()
        .ok()
        .filter(|number| *number >= none && *number <= max)
        .map(|number| (number != none).then_some(number))
        .ok_or_else(|| format!("{name}: \"{}\" is no number 0 to {max}", shown(value)))
}

fn shown(word: &str) -> String {
    word.chars().filter(|c| !c.is_control()).take(32).collect()
}
