//! Chesscala perft speed: perft(4) from the reconstructed start (81,132,160 turns) should take
//! under 3 s in release on the project's 2-core machine.
//!
//! Run with `cargo bench --bench chesscala -- --warm-up-time 1 --measurement-time 5`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pigeon::rules::Position;
use pigeon::rules::chesscala::Chesscala;

fn perft(c: &mut Criterion) {
    let start = Chesscala::start();
    let mut group = c.benchmark_group("chesscala");
    group.sample_size(10);
    group.throughput(Throughput::Elements(81_132_160));
    group.bench_function("perft4_start", |b| b.iter(|| black_box(&start).perft(4)));
    group.throughput(Throughput::Elements(200_046));
    group.bench_function("perft3_start", |b| b.iter(|| black_box(&start).perft(3)));
    group.finish();
}

criterion_group!(benches, perft);
criterion_main!(benches);
