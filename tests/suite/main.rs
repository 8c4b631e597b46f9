//! Pigeon's integration tests, in one binary to keep link time down.
//!
//! Test data copied from the rules specification and the independent oracles lives in
//! `tests/data/`; nothing here reads files outside the repository.

mod chak;
mod cli;
mod common;
mod render;
mod views;
