//! Perft speed of the Shakti and Chad move generators from their start positions.
//!
//! Targets on the 2-core reference machine: Shakti perft(6) (236,646,376 leaves) under 2 s and
//! Chad perft(5) (887,989,702 leaves) under 3 s. Run with
//! `cargo bench --bench shakti_chad -- --warm-up-time 1 --measurement-time 5`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pigeon::rules::{Variant, VariantPosition};

fn perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (variant, depth, leaves) in [
        (Variant::Shakti, 6, 236_646_376),
        (Variant::Chad, 5, 887_989_702),
    ] {
        let start = VariantPosition::start(variant);
        group.throughput(Throughput::Elements(leaves));
        group.bench_function(format!("{}_{depth}", variant.key()), |b| {
            b.iter(|| assert_eq!(black_box(&start).perft(depth), leaves));
        });
    }
    group.finish();
}

criterion_group!(benches, perft);
criterion_main!(benches);
