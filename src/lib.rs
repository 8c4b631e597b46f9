//! Pigeon: correspondence play of four chess variants in chat.
//!
//! People challenge a friend in a Discord channel or Matrix room, play slow games (days per
//! move), and after every turn the bot posts a picture of the board. The games are Chak, Shakti,
//! Chad and Chesscala.
//!
//! # Layout
//!
//! - [`rules`]: the pure rules core. One position type per game behind the
//!   [`rules::Position`] trait, the game registry, outcomes, move errors and game records.
//! - [`store`]: the game database behind the [`store::Database`] trait, with SQLite as its
//!   backend (the only module with SQL).
//! - [`service`]: the use cases of correspondence play, independent of any chat platform,
//!   correspondence tournaments among them ([`service::tournaments`]).
//! - [`adapters`]: thin translations between chat platforms and [`chat`]: the console,
//!   Discord with the `discord` feature, and Matrix with the `matrix` feature.
//! - [`chat`]: the command grammar, help and replies, the same on every platform.
//! - [`engine`]: the built-in opponent, an alpha-beta search over the rules core at five
//!   levels, and post-game analysis (moves judged by lost winning chances); pure and
//!   synchronous, seeded randomness.
//! - [`render`]: board pictures: a position (last move, checks, viewpoint, caption) to PNG
//!   bytes, a whole game to an animated GIF, an analysed game's evaluation graph, tables
//!   (tournament standings); pure, with embedded art and font.
//! - [`pairing`]: tournament pairings, pure: a TRF reader, the FIDE Dutch system for Swiss
//!   rounds (a maximum-weight matching) and the Berger tables for round robins.
//! - [`web`]: the read-only website: a page per game at an unguessable address (board at any
//!   move, move list, record and replay downloads, live updates of a running game), over the
//!   service; rate-limited per client, strict security headers.
//! - [`markup`]: HTML escaping, shared by the Matrix adapter and the web pages.
//! - [`config`]: configuration shared by the adapters (secrets that never print).
//! - [`cli`]: the command-line tools built on the rules core (`moves`, `perft`, `play`).
//! - [`arena`]: `pigeon match`, two UCI engines playing each other over stored openings, with
//!   the rules core as referee; score, Elo and SPRT.
//! - [`uci`]: `pigeon uci`, the engine behind the UCI protocol (Fairy-Stockfish's variant
//!   conventions), searching on a thread of its own.
//!
//! See `ARCHITECTURE.md` for how the layers depend on each other.

pub mod adapters;
pub mod arena;
pub mod chat;
pub mod cli;
pub mod config;
pub mod engine;
pub mod markup;
pub mod pairing;
pub mod render;
pub mod rules;
pub mod service;
pub mod store;
pub mod uci;
pub mod web;
