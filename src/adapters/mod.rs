//! Thin adapters between chat platforms and the [`chat`](crate::chat) layer: they turn
//! platform events into [`Incoming`](crate::chat::Incoming) messages and
//! [`Reply`](crate::chat::Reply)s into platform messages, and nothing else.

pub mod console;
#[cfg(feature = "discord")]
pub mod discord;
