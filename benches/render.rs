//! Picture speed: one board (render plus PNG encode) per game at the default size, with a
//! caption and a last move, and a 60-ply replay GIF.
//!
//! Run short: `cargo bench --bench render -- --warm-up-time 1 --measurement-time 5`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pigeon::render::{self, Caption, Frame, RenderOptions, Theme};
use pigeon::rules::{BoardView, Color, Coord, MoveMarks};

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
            to_move: Color::White,
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

/// 60 plies of Chak: pieces shuffled along the board so every frame differs.
fn game(plies: usize) -> Vec<Frame> {
    let mut view = views::chak_start();
    let mut frames = Vec::new();
    for ply in 0..=plies {
        let mut options = options();
        options.side = Some(Color::White);
        if ply > 0 {
            let from = (ply * 7) % view.cells.len();
            let to = (ply * 13 + 5) % view.cells.len();
            view.cells.swap(from, to);
            let at = |i: usize| Coord::new((i % 9) as u8, (i / 9) as u8);
            options.last = Some(MoveMarks {
                from: vec![at(from)],
                to: vec![at(to)],
                ..MoveMarks::default()
            });
        }
        if let Some(caption) = &mut options.caption {
            caption.move_number = (ply / 2 + 1) as u32;
        }
        frames.push(Frame {
            view: view.clone(),
            options,
        });
    }
    frames
}

fn replay(c: &mut Criterion) {
    let frames = game(60);
    let gif = render::replay_gif(Theme::Chak, &frames).expect("renders");
    eprintln!("60-ply GIF: {} bytes", gif.len());
    let mut group = c.benchmark_group("replay");
    group.sample_size(10);
    group.bench_function("gif 60 plies Chak", |b| {
        b.iter(|| render::replay_gif(Theme::Chak, black_box(&frames)).expect("renders"));
    });
    group.finish();
}

criterion_group!(benches, board, replay);
criterion_main!(benches);
