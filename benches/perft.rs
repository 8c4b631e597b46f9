//! Perft speed of the Chak move generator from the start position.
//!
//! Run with `cargo bench --bench perft`; criterion reports the time of perft(5) (46,112,201
//! leaves) and the nodes per second as throughput. The target is 10 M nodes/s or more on the
//! 2-core reference machine (twice Fairy-Stockfish's 5.1 M nodes/s there).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pigeon::rules::Position;
use pigeon::rules::chak::Chak;

fn chak_perft(c: &mut Criterion) {
    let start = Chak::start();
    let mut group = c.benchmark_group("chak");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(25));
    group.throughput(Throughput::Elements(46_112_201));
    group.bench_function("perft5_start", |b| b.iter(|| black_box(&start).perft(5)));
    group.finish();
}

criterion_group!(benches, chak_perft);
criterion_main!(benches);
