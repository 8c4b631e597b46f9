//! One engine of a match: a child process spoken to in UCI. Its output is read on a thread of
//! its own into a channel, so every wait for an answer has a time limit.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use super::ArenaError;
use crate::rules::Variant;

/// How long an engine may take to start and to answer `isready`.
const HANDSHAKE: Duration = Duration::from_secs(20);

/// A running UCI engine.
#[derive(Debug)]
pub struct Player {
    /// The engine's name, from `id name` (else its command).
    pub name: String,
    command: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

/// An engine's answer to `go`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Answer {
    /// The word after `bestmove`.
    pub mv: String,
    /// How long the engine took.
    pub took: Duration,
}

impl Player {
    /// Starts `command` (a program and its arguments, split at spaces), introduces it to UCI
    /// and sets it to play `variant`.
    ///
    /// # Errors
    /// [`ArenaError`] when the program does not start, does not speak UCI in time, or does
    /// not offer the variant.
    pub fn start(command: &str, variant: Variant) -> Result<Player, ArenaError> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or_else(|| ArenaError::Engine {
            command: command.to_owned(),
            problem: String::from("the engine command is empty"),
        })?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| ArenaError::Engine {
                command: command.to_owned(),
                problem: format!("cannot start it: {error}"),
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(ArenaError::Engine {
                command: command.to_owned(),
                problem: String::from("its input and output cannot be connected"),
            });
        };
        let (sender, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut player = Player {
            name: command.to_owned(),
            command: command.to_owned(),
            child,
            stdin,
            lines,
        };
        player.introduce(variant)?;
        Ok(player)
    }

    fn introduce(&mut self, variant: Variant) -> Result<(), ArenaError> {
        self.send("uci")?;
        let deadline = Instant::now() + HANDSHAKE;
        let mut variants: Option<Vec<String>> = None;
        loop {
            let line = self.next_line(deadline, "uciok")?;
            if let Some(name) = line.strip_prefix("id name ") {
                self.name = name.trim().to_owned();
            } else if line.starts_with("option name UCI_Variant ") {
                variants = Some(
                    line.split_whitespace()
                        .skip_while(|word| *word != "var")
                        .filter(|word| *word != "var")
                        .map(str::to_owned)
                        .collect(),
                );
            } else if line.trim() == "uciok" {
                break;
            }
        }
        if let Some(variants) = variants
            && !variants.iter().any(|name| name == variant.key())
        {
            return Err(ArenaError::Engine {
                command: self.command.clone(),
                problem: format!("it does not offer the variant {}", variant.key()),
            });
        }
        self.send(&format!(
            "setoption name UCI_Variant value {}",
            variant.key()
        ))?;
        self.ready()
    }

    /// Tells the engine a new game starts and waits until it is ready.
    ///
    /// # Errors
    /// [`ArenaError`] when the engine does not answer.
    pub fn new_game(&mut self) -> Result<(), ArenaError> {
        self.send("ucinewgame")?;
        self.ready()
    }

    fn ready(&mut self) -> Result<(), ArenaError> {
        self.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE;
        while self.next_line(deadline, "readyok")?.trim() != "readyok" {}
        Ok(())
    }

    /// Sends `position` and `go`, and waits up to `patience` for the `bestmove`.
    ///
    /// # Errors
    /// [`ArenaError`] when the engine does not answer in time or has stopped.
    pub fn best_move(
        &mut self,
        position: &str,
        go: &str,
        patience: Duration,
    ) -> Result<Answer, ArenaError> {
        self.send(position)?;
        self.send(go)?;
        let started = Instant::now();
        let deadline = started + patience;
        loop {
            let line = self.next_line(deadline, "bestmove")?;
            let mut words = line.split_whitespace();
            if words.next() == Some("bestmove") {
                return Ok(Answer {
                    mv: words.next().unwrap_or("(none)").to_owned(),
                    took: started.elapsed(),
                });
            }
        }
    }

    fn send(&mut self, line: &str) -> Result<(), ArenaError> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|error| ArenaError::Engine {
                command: self.command.clone(),
                problem: format!("it stopped reading ({error})"),
            })
    }

    fn next_line(&mut self, deadline: Instant, awaited: &str) -> Result<String, ArenaError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        self.lines.recv_timeout(wait).map_err(|error| {
            let problem = match error {
                RecvTimeoutError::Timeout => format!("no {awaited} in time"),
                RecvTimeoutError::Disconnected => format!("it ended before {awaited}"),
            };
            ArenaError::Engine {
                command: self.command.clone(),
                problem,
            }
        })
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
