//! Perft speed of every game's move generator.
use criterion::{Criterion, criterion_group, criterion_main};
fn perft(_c: &mut Criterion) {}
criterion_group!(benches, perft);
criterion_main!(benches);
