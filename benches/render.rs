//! Picture speed: one board (render plus PNG encode) per game at the default size, with a
//! caption and a last move, and a 100-ply replay GIF of each game.
//!
//! Run short: `cargo bench --bench render -- --warm-up-time 1 --measurement-time 5`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pigeon::render::{self, Caption, Frame, RenderOptions, Theme};
use pigeon::rules::{BoardView, Color, Coord, MoveMarks, Variant};

#[path = "../tests/suite/views.rs"]
mod views;

fn options() -> RenderOptions {
    RenderOptions {
        last: Some(MoveMarks {
            from: vec![Coord::new(1, 1)],
            to: vec![Coord::new(1, 2)],
            ..MoveMarks::default()
        }),
        caption: Some(Caption {
            white: "Ixchel".to_owned(),
            black: "Kukulkan".to_owned(),
            move_number: 12,
            to_move: Some(Color::White),
            deadline: Some("Tue 24 Nov 18:00 UTC".to_owned()),
            status: None,
        }),
        ..RenderOptions::default()
    }
}

fn boards() -> [(Theme, BoardView); 4] {
    [
        (Theme::Chak, views::chak_start()),
        (Theme::Shakti, views::shakti_start()),
        (Theme::Chad, views::chad_start()),
        (Theme::Chesscala, views::chesscala_start()),
    ]
}

fn board(c: &mut Criterion) {
    let options = options();
    for (theme, view) in boards() {
        let png = render::render_view(theme, &view, &options).expect("renders");
        eprintln!("{theme:?}: {} bytes", png.len());
        c.bench_function(&format!("render {theme:?}"), |b| {
            b.iter(|| render::render_view(theme, black_box(&view), &options).expect("renders"));
        });
    }
}

/// The frames of a 100-ply game of `variant`, seen from White.
fn game(variant: Variant, plies: usize) -> (Theme, Vec<Frame>) {
    let record = views::random_game(variant, plies);
    let frames = render::game_frames(&record, "Ixchel", "Kukulkan", Color::White, None);
    (Theme::for_variant(variant), frames)
}

fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay");
    group.sample_size(10);
    for variant in views::REPLAYED {
        let (theme, frames) = game(variant, 100);
        let gif = render::replay_gif(theme, &frames).expect("renders");
        eprintln!("{variant} 100-ply GIF: {} bytes", gif.len());
        group.bench_function(format!("gif 100 plies {variant}"), |b| {
            b.iter(|| render::replay_gif(theme, black_box(&frames)).expect("renders"));
        });
    }
    group.finish();
}

criterion_group!(benches, board, replay);
criterion_main!(benches);
