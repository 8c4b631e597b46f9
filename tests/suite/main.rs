//! Pigeon's integration tests, in one binary to keep link time down.
//!
//! Test data copied from the rules specification and the independent oracles lives in
//! `tests/data/`; nothing here reads files outside the repository.

#![recursion_limit = "256"]

mod analysis;
mod bot_ratings;
mod browser;
mod chad;
mod chak;
mod chesscala;
mod cli;
mod common;
mod correspondence;
mod crash;
mod deadlines;
#[cfg(feature = "discord")]
mod discord;
mod engine;
mod full_disk;
#[cfg(feature = "matrix")]
mod matrix;
mod migrate;
mod options;
mod oracle;
mod pairing;
mod records;
mod render;
mod replies;
mod robustness;
mod security;
mod service;
mod shakti;
mod store;
mod tournaments;
mod transcripts;
mod uci;
mod views;
mod walks;
mod web;
mod web_pages;
