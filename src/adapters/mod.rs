//! Thin adapters between chat platforms and the [`chat`](crate::chat) layer: they turn
//! platform events into [`Incoming`](crate::chat::Incoming) messages and
//! [`Reply`](crate::chat::Reply)s into platform messages, and nothing else. Each chat bot
//! (behind its cargo feature) has one entry point, `run(service, config, shutdown)`, that runs
//! until the `shutdown` watch turns true, so `pigeon serve` can run several in one process.

pub mod console;
#[cfg(feature = "discord")]
pub mod discord;
#[cfg(feature = "matrix")]
pub mod matrix;
