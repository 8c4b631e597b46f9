//! Board pictures: golden images compared by decoded pixels, key pixels asserted, replays.
//!
//! `UPDATE_GOLDEN=1 cargo test render` rewrites the goldens in `tests/data/golden/`; on a
//! mismatch the actual picture and a diff image are written to `target/golden-diff/`.

use std::path::PathBuf;

use image::{Rgb as Pixel, RgbImage};
use pigeon::cli;
use pigeon::render::{
    self, CAPTURE, CHAK_ALTAR, CHAK_RIVER_DARK, CHECK, Caption, FINAL_PAUSE_CS, Frame, HIGHLIGHT,
    MOVE_DELAY_CS, RenderError, RenderOptions, Rgb, SHAKTI_HOLE, Theme,
};
use pigeon::rules::{BoardView, Cell, Color, MoveMarks, PieceView, Variant, VariantPosition};

use crate::common::data_path;
use crate::views::{self, sq};

/// Pixels whose channels differ by more than this count as different (anti-aliasing may vary
/// by a few levels between CPUs).
const CHANNEL_TOLERANCE: u8 = 24;
/// The share of pixels allowed to differ before a golden fails.
const PIXEL_TOLERANCE: f64 = 0.0005;

fn decode(png: &[u8]) -> RgbImage {
    image::load_from_memory(png).expect("a PNG").to_rgb8()
}

fn diff_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("golden-diff")
}

/// Compares a picture with its golden by decoded pixels.
fn golden(name: &str, png: &[u8]) {
    let path = data_path(&format!("golden/{name}.png"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, png).expect("writing the golden");
        return;
    }
    let actual = decode(png);
    let expected = decode(&std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
            path.display()
        )
    }));
    let same_size = actual.dimensions() == expected.dimensions();
    let mut differing = 0usize;
    let mut diff = RgbImage::new(actual.width(), actual.height());
    for (x, y, a) in actual.enumerate_pixels() {
        let close = same_size && {
            let e = expected.get_pixel(x, y);
            a.0.iter()
                .zip(e.0)
                .all(|(a, e)| a.abs_diff(e) <= CHANNEL_TOLERANCE)
        };
        if close {
            diff.put_pixel(x, y, Pixel(a.0.map(|c| c / 3 + 120)));
        } else {
            differing += 1;
            diff.put_pixel(x, y, Pixel([255, 0, 0]));
        }
    }
    let allowed = (f64::from(actual.width() * actual.height()) * PIXEL_TOLERANCE) as usize;
    if !same_size || differing > allowed {
        let dir = diff_dir();
        std::fs::create_dir_all(&dir).expect("creating target/golden-diff");
        std::fs::write(dir.join(format!("{name}.actual.png")), png).expect("writing actual");
        diff.save(dir.join(format!("{name}.diff.png")))
            .expect("writing the diff");
        panic!(
            "{name}: {differing} pixels differ (allowed {allowed}), sizes {:?} vs {:?}; see {}",
            actual.dimensions(),
            expected.dimensions(),
            dir.display()
        );
    }
}

fn pixel(image: &RgbImage, x: u32, y: u32) -> Rgb {
    let p = image.get_pixel(x, y);
    Rgb(p.0[0], p.0[1], p.0[2])
}

/// The top-left pixel and the edge of a square in a picture drawn with `options`.
fn square(theme: Theme, options: &RenderOptions, name: &str) -> (u32, u32, u32) {
    render::square_origin(theme, options, sq(name)).expect("a valid size")
}

fn marks(from: &[&str], to: &[&str], captures: &[&str], removed: &[&str]) -> MoveMarks {
    let coords = |names: &[&str]| names.iter().map(|n| sq(n)).collect();
    MoveMarks {
        from: coords(from),
        to: coords(to),
        captures: coords(captures),
        removed: coords(removed),
    }
}

fn caption() -> Caption {
    Caption {
        white: "Ixchel".to_owned(),
        black: "Kukulkan & <friends>".to_owned(),
        move_number: 12,
        to_move: Some(Color::Black),
        deadline: Some("Tue 24 Nov 18:00 UTC".to_owned()),
        status: Some("Check!".to_owned()),
    }
}

#[test]
fn chak_start_has_the_river_and_altars_in_place() {
    let options = RenderOptions::default();
    let png = render::render_view(Theme::Chak, &views::chak_start(), &options).unwrap();
    let image = decode(&png);
    // 80-pixel squares and a 36-pixel coordinate band on each side.
    assert_eq!(image.dimensions(), (792, 792));
    let (x, y, s) = square(Theme::Chak, &options, "e5");
    assert_eq!(s, 80);
    assert_eq!(pixel(&image, x + s / 2, y + s / 2), CHAK_RIVER_DARK);
    let (x, y, _) = square(Theme::Chak, &options, "e2");
    assert_eq!(pixel(&image, x + 1, y + 1), CHAK_ALTAR);
    golden("chak-start", &png);
}

#[test]
fn chak_last_move_and_check_are_highlighted() {
    // After e3e4 ... a Green serpent checks the White king along the e-file (hand-made).
    let view = views::fen(
        9,
        9,
        "rvsqkjsv1/4o4/p1p1p1p1p/9/4r4/9/P1P3P1P/4O4/RVSJKQSVR",
    );
    let options = RenderOptions {
        last: Some(marks(&["i9"], &["e5"], &[], &[])),
        checked: vec![sq("e1")],
        ..RenderOptions::default()
    };
    let png = render::render_view(Theme::Chak, &view, &options).unwrap();
    let image = decode(&png);
    let (x, y, s) = square(Theme::Chak, &options, "i9");
    assert_eq!(pixel(&image, x + 1, y + s / 2), HIGHLIGHT);
    let (x, y, s) = square(Theme::Chak, &options, "e5");
    assert_eq!(pixel(&image, x + s - 2, y + s / 2), HIGHLIGHT);
    let (x, y, s) = square(Theme::Chak, &options, "e1");
    assert_eq!(pixel(&image, x + 1, y + s / 2), CHECK);
    golden("chak-last-check", &png);
}

#[test]
fn black_sees_the_board_turned_round() {
    let white = RenderOptions::default();
    let black = RenderOptions {
        side: Some(Color::Black),
        ..RenderOptions::default()
    };
    // a1 is bottom-left for White and top-right for Black.
    let (wx, wy, s) = square(Theme::Chak, &white, "a1");
    let (bx, by, _) = square(Theme::Chak, &black, "a1");
    assert_eq!((wx, wy), (36, 36 + 8 * s));
    assert_eq!((bx, by), (36 + 8 * s, 36));
    let png = render::render_view(Theme::Chak, &views::chak_start(), &black).unwrap();
    let image = decode(&png);
    let (x, y, _) = square(Theme::Chak, &black, "e8");
    assert_eq!(pixel(&image, x + 1, y + 1), CHAK_ALTAR);
    golden("chak-black-view", &png);
}

#[test]
fn caption_names_the_players_and_turn() {
    let options = RenderOptions {
        caption: Some(caption()),
        ..RenderOptions::default()
    };
    let png = render::render_view(Theme::Chak, &views::chak_start(), &options).unwrap();
    let image = decode(&png);
    // The caption band sits above the board; the view defaults to the side to move (Green).
    let (x, y, _) = square(Theme::Chak, &options, "a1");
    assert!(
        y < 200 && x > 600,
        "a1 at ({x}, {y}) is top-right for Green"
    );
    assert!(image.height() > 792);
    golden("chak-caption", &png);
}

#[test]
fn chak_caption_tells_the_birds_apart_where_it_fits() {
    let at = |size: u32| {
        let options = RenderOptions {
            caption: Some(caption()),
            side: Some(Color::White),
            size,
            ..RenderOptions::default()
        };
        square(Theme::Chak, &options, "a9").1
    };
    // At the default size (23-pixel caption font, 36-pixel margin) the band holds a third
    // line: the legend of the quetzal and the vulture.
    assert_eq!(at(render::DEFAULT_SIZE), 36 + 23 * 4 + 23 * 3 / 5);
    // A small picture has no room for it: two lines (14-pixel font, 22-pixel margin).
    assert_eq!(at(render::MIN_SIZE), 22 + 14 * 3 + 14 / 2);
}

#[test]
fn shakti_holes_show_the_ground() {
    let options = RenderOptions::default();
    let png = render::render_view(Theme::Shakti, &views::shakti_start(), &options).unwrap();
    let image = decode(&png);
    let (x, y, s) = square(Theme::Shakti, &options, "a1");
    assert_eq!(pixel(&image, x + s / 2, y + s / 2), SHAKTI_HOLE);
    golden("shakti-start", &png);
}

#[test]
fn shakti_removed_tiles_are_gone_and_marked() {
    // shakti.md §1.7 vector 4 after f1-d3 (rm e2).
    let view = views::fen(
        7,
        7,
        "#..w..#/...k.../.W...../K.#w.../...W.../....#../#.....#",
    );
    let options = RenderOptions {
        last: Some(marks(&["f1"], &["d3"], &[], &["e2"])),
        side: Some(Color::White),
        ..RenderOptions::default()
    };
    let png = render::render_view(Theme::Shakti, &view, &options).unwrap();
    let image = decode(&png);
    let (x, y, s) = square(Theme::Shakti, &options, "e2");
    assert_eq!(pixel(&image, x + s / 2, y + s / 2), SHAKTI_HOLE);
    let inset = (s / 24).max(2);
    assert_eq!(pixel(&image, x + inset + 1, y + s / 2), HIGHLIGHT);
    let (x, y, s) = square(Theme::Shakti, &options, "c4");
    assert_eq!(pixel(&image, x + s / 2, y + s / 2), SHAKTI_HOLE);
    golden("shakti-removed", &png);
}

#[test]
fn chad_start_and_check() {
    let png =
        render::render_view(Theme::Chad, &views::chad_start(), &RenderOptions::default()).unwrap();
    let image = decode(&png);
    // 60-pixel squares on the 12x12 board.
    assert_eq!(image.dimensions(), (720 + 2 * 27, 720 + 2 * 27));
    golden("chad-start", &png);

    // chad.md §2.6 vector 5: the queen on h9 checks the Black king on i8.
    let view = views::fen(12, 12, "7r4/12/12/7Q1r2/7k4/12/12/12/3K8/12/12/11R");
    let options = RenderOptions {
        last: Some(marks(&["h1"], &["h9"], &[], &[])),
        checked: vec![sq("i8")],
        ..RenderOptions::default()
    };
    let png = render::render_view(Theme::Chad, &view, &options).unwrap();
    let image = decode(&png);
    let (x, y, s) = square(Theme::Chad, &options, "i8");
    assert_eq!(pixel(&image, x + 1, y + s / 2), CHECK);
    golden("chad-check", &png);

    // chad.md §2.6 vector 3: Rg9xh9=Q, the rook on the wall taking into the castle.
    let view = views::fen(12, 12, "12/12/12/7Q4/7k4/12/12/12/3K8/12/12/12");
    let options = RenderOptions {
        last: Some(marks(&["g9"], &["h9"], &["h9"], &[])),
        ..RenderOptions::default()
    };
    let png = render::render_view(Theme::Chad, &view, &options).unwrap();
    let image = decode(&png);
    let (x, y, _) = square(Theme::Chad, &options, "h9");
    assert_eq!(pixel(&image, x + 1, y + 1), CAPTURE);
    golden("chad-capture", &png);
}

#[test]
fn chesscala_start_shows_every_stack() {
    let png = render::render_view(
        Theme::Chesscala,
        &views::chesscala_start(),
        &RenderOptions::default(),
    )
    .unwrap();
    golden("chesscala-start", &png);
}

#[test]
fn chesscala_three_and_four_stacks_and_a_sowing() {
    // chesscala.md §3.7 T3 after the sowing R,Q,P,B from b5, with T4's bomb stack on d3.
    let view = views::stacks(
        "krnp,Mn,kn,-,-,-/B,Q,-,-,-,-/-,R,-,-,-,-/-,-,-,-,-,-/-,-,-,-,-,-/-,-,-,OPb,-,-/-,-,-,-,-,-/-,-,-,K,-,KH",
    );
    let options = RenderOptions {
        last: Some(marks(&["b5"], &["b6", "b7", "b8", "a7"], &[], &[])),
        checked: vec![sq("a8")],
        ..RenderOptions::default()
    };
    let png = render::render_view(Theme::Chesscala, &view, &options).unwrap();
    let image = decode(&png);
    for name in ["b6", "b7", "b8", "a7", "b5"] {
        let (x, y, s) = square(Theme::Chesscala, &options, name);
        assert_eq!(pixel(&image, x + 1, y + s / 2), HIGHLIGHT, "{name}");
    }
    golden("chesscala-stacks", &png);
}

#[test]
fn bad_views_and_options_are_errors_not_panics() {
    let view = views::chak_start();
    assert!(matches!(
        render::render_view(Theme::Chad, &view, &RenderOptions::default()),
        Err(RenderError::BoardMismatch { .. })
    ));
    let tiny = RenderOptions {
        size: 10,
        ..RenderOptions::default()
    };
    assert_eq!(
        render::render_view(Theme::Chak, &view, &tiny),
        Err(RenderError::Size(10))
    );
    for size in [render::MIN_SIZE, render::MAX_SIZE + 1] {
        let options = RenderOptions {
            size,
            caption: Some(caption()),
            ..RenderOptions::default()
        };
        let drawn = render::render_view(Theme::Chad, &views::chad_start(), &options);
        assert_eq!(drawn.is_ok(), size <= render::MAX_SIZE, "size {size}");
    }
    let off = RenderOptions {
        checked: vec![pigeon::rules::Coord::new(9, 0)],
        ..RenderOptions::default()
    };
    assert!(matches!(
        render::render_view(Theme::Chak, &view, &off),
        Err(RenderError::OffBoard { .. })
    ));
    let mut tall = view.clone();
    let piece = PieceView {
        color: Color::White,
        letter: 'P',
    };
    tall.cells[40] = Cell::Pieces(vec![piece; 5]);
    assert!(matches!(
        render::render_view(Theme::Chak, &tall, &RenderOptions::default()),
        Err(RenderError::Stack { .. })
    ));
    // A letter the set has no art for is still drawn (as a lettered disc).
    let mut odd = view;
    odd.cells[40] = Cell::Pieces(vec![PieceView {
        color: Color::Black,
        letter: 'Z',
    }]);
    assert!(render::render_view(Theme::Chak, &odd, &RenderOptions::default()).is_ok());
}

#[test]
fn board_pictures_stay_small() {
    for (theme, view) in [
        (Theme::Chak, views::chak_start()),
        (Theme::Shakti, views::shakti_start()),
        (Theme::Chad, views::chad_start()),
        (Theme::Chesscala, views::chesscala_start()),
    ] {
        let options = RenderOptions {
            caption: Some(caption()),
            ..RenderOptions::default()
        };
        let png = render::render_view(theme, &view, &options).unwrap();
        assert!(png.len() <= 100_000, "{theme:?}: {} bytes", png.len());
    }
}

#[test]
fn move_texts_name_their_squares() {
    let m = render::marks_from_text("b2-d4(rm c3)", 7, 7);
    assert_eq!(m, marks(&["b2"], &["d4"], &[], &["c3"]));
    let m = render::marks_from_text("Rg9xh9=Q", 12, 12);
    assert_eq!(m, marks(&["g9"], &["h9"], &["h9"], &[]));
    let m = render::marks_from_text("He1xa3=r@b3", 6, 8);
    assert_eq!(m, marks(&["e1"], &["b3"], &["a3"], &[]));
    let m = render::marks_from_text("h10h9", 12, 12);
    assert_eq!(m, marks(&["h10"], &["h9"], &[], &[]));
    assert_eq!(
        render::marks_from_text("ünïcödé ✓ e", 9, 9),
        MoveMarks::default()
    );
}

/// A made-up game of `plies` moves: a White rook walking round an empty Chad board.
fn walk(plies: usize) -> Vec<Frame> {
    let mut frames = Vec::new();
    let mut view: BoardView = views::chad_start();
    let mut at = sq("a1");
    for ply in 0..=plies {
        let mut options = RenderOptions {
            side: Some(Color::White),
            ..RenderOptions::default()
        };
        if ply > 0 {
            let next = pigeon::rules::Coord::new((at.file + 1) % 12, at.rank);
            view.cells[usize::from(at.rank) * 12 + usize::from(at.file)] = Cell::Empty;
            options.last = Some(MoveMarks {
                from: vec![at],
                to: vec![next],
                ..MoveMarks::default()
            });
            at = next;
        }
        view.cells[usize::from(at.rank) * 12 + usize::from(at.file)] =
            Cell::Pieces(vec![PieceView {
                color: Color::White,
                letter: 'R',
            }]);
        frames.push(Frame {
            view: view.clone(),
            options,
        });
    }
    frames
}

#[test]
fn replay_gif_has_a_frame_per_position_and_a_final_pause() {
    let frames = walk(6);
    let gif = render::replay_gif(Theme::Chad, &frames).unwrap();
    let delays = frame_delays(&gif);
    assert_eq!(delays.len(), frames.len());
    assert_eq!(delays.last(), Some(&FINAL_PAUSE_CS));
    assert!(
        delays[..delays.len() - 1]
            .iter()
            .all(|&d| d == MOVE_DELAY_CS)
    );
    assert_eq!(
        render::replay_gif(Theme::Chad, &[]),
        Err(RenderError::Frames)
    );
}

/// The pictures a viewer shows for each frame of a GIF: every frame's rectangle laid over the
/// picture before it, its transparent pixels keeping what was there.
fn gif_pictures(gif: &[u8]) -> Vec<RgbImage> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(gif).expect("a GIF");
    let mut shown = RgbImage::new(u32::from(decoder.width()), u32::from(decoder.height()));
    let mut pictures = Vec::new();
    while let Some(frame) = decoder.read_next_frame().expect("a frame") {
        assert_eq!(frame.dispose, gif::DisposalMethod::Keep);
        let width = usize::from(frame.width);
        for (i, px) in frame.buffer.chunks_exact(4).enumerate() {
            if px[3] != 0 {
                let x = u32::from(frame.left) + (i % width) as u32;
                let y = u32::from(frame.top) + (i / width) as u32;
                shown.put_pixel(x, y, Pixel([px[0], px[1], px[2]]));
            }
        }
        pictures.push(shown.clone());
    }
    pictures
}

#[test]
fn a_100_ply_replay_is_under_a_megabyte_and_shows_every_position_exactly() {
    for variant in views::REPLAYED {
        let record = views::random_game(variant, 100);
        let frames = render::game_frames(&record, "Ixchel", "Kukulkan", Color::White, None);
        let theme = Theme::for_variant(variant);
        let gif = render::replay_gif(theme, &frames).unwrap();
        assert!(
            gif.len() <= 1_000_000,
            "{variant}: a 100-ply replay of {} bytes",
            gif.len()
        );
        let pictures = gif_pictures(&gif);
        assert_eq!(pictures.len(), 101, "{variant}: one frame per position");
        for (ply, (frame, shown)) in frames.iter().zip(&pictures).enumerate() {
            let png = render::render_view(theme, &frame.view, &frame.options).unwrap();
            assert!(
                decode(&png) == *shown,
                "{variant}: the replay after ply {ply} is not the board picture"
            );
        }
    }
}

#[test]
fn every_asset_is_listed_with_its_licence() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    let copying = std::fs::read_to_string(root.join("COPYING.md")).expect("assets/COPYING.md");
    for file in Theme::art_files() {
        assert!(
            copying.contains(&format!("`pieces/{file}`")),
            "{file} not listed"
        );
    }
    for font in ["fonts/DejaVuSans.ttf", "fonts/DejaVuSans-Bold.ttf"] {
        assert!(copying.contains(&format!("`{font}`")), "{font} not listed");
    }
}

/// Green (to move) in check on e6, from the Chak oracle vectors.
const CHAK_CHECK: &str = "4s4/4o4/v8/1j1qk4/8R/3J2K2/P4r3/4O4/SV7 b - - 2 49";

fn frame_delays(gif: &[u8]) -> Vec<u16> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(gif).expect("a GIF");
    let mut delays = Vec::new();
    while let Some(frame) = decoder.read_next_frame().expect("a frame") {
        delays.push(frame.delay);
    }
    delays
}

#[test]
fn real_chak_positions_show_their_checks_from_the_side_to_move() {
    let position = VariantPosition::from_text(Variant::Chak, CHAK_CHECK).unwrap();
    let png = render::render_position(&position, &RenderOptions::default()).unwrap();
    let image = decode(&png);
    let green = RenderOptions {
        side: Some(Color::Black),
        ..RenderOptions::default()
    };
    let (x, y, s) = square(Theme::Chak, &green, "e6");
    assert_eq!(pixel(&image, x + 1, y + s / 2), CHECK);
    // Seen from Green: a1 is top-right.
    let (x, y, _) = square(Theme::Chak, &green, "a1");
    assert!(x > 600 && y < 100);
    golden("chak-real-check", &png);
}

#[test]
fn cli_render_plays_a_legal_last_move_or_reads_its_squares() {
    let options = RenderOptions {
        side: Some(Color::Black),
        ..RenderOptions::default()
    };
    let request = cli::RenderRequest {
        last: Some("e3e4".to_owned()),
        ..cli::RenderRequest::default()
    };
    // Legal at the start: the board after it, seen from Green (to move), e3 and e4 marked.
    let played = decode(&cli::render(Variant::Chak, "start", &request).unwrap());
    for name in ["e3", "e4"] {
        let (x, y, s) = square(Theme::Chak, &options, name);
        assert_eq!(pixel(&played, x + 1, y + s / 2), HIGHLIGHT, "{name}");
    }
    // Not legal in the position after it (Green to move): read as the move that led there.
    let after = "rvsqkjsvr/4o4/p1p1p1p1p/9/9/4P4/P1P3P1P/4O4/RVSJKQSVR b - - 0 1";
    let read = decode(&cli::render(Variant::Chak, after, &request).unwrap());
    assert_eq!(read, played);
    let err = cli::render(Variant::Chak, "not a position", &request);
    assert!(matches!(err, Err(cli::CliError::Position(_))));
}

#[test]
fn cli_gif_replays_from_the_start() {
    let moves: Vec<String> = ["e3e4", "e7e6", "d1d2"].map(String::from).to_vec();
    let gif = cli::gif(Variant::Chak, &moves).unwrap();
    let delays = frame_delays(&gif);
    assert_eq!(delays.len(), 4);
    assert_eq!(delays.last(), Some(&FINAL_PAUSE_CS));
    let bad = cli::gif(Variant::Chak, &["e3e4".to_owned(), "e3e4".to_owned()]);
    assert!(matches!(bad, Err(cli::CliError::Move { ply: 2, .. })));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    #[test]
    fn any_view_and_marks_draw_or_fail_cleanly(
        cells in proptest::collection::vec((0u8..6, proptest::char::any(), proptest::bool::ANY), 81),
        mark in (0u8..12, 0u8..12),
    ) {
        let cells = cells
            .into_iter()
            .map(|(kind, letter, white)| {
                let color = if white { Color::White } else { Color::Black };
                match kind {
                    0 => Cell::Hole,
                    1 | 2 => Cell::Empty,
                    n => Cell::Pieces(vec![PieceView { color, letter }; usize::from(n - 2)]),
                }
            })
            .collect();
        let view = BoardView { files: 9, ranks: 9, cells };
        let at = pigeon::rules::Coord::new(mark.0, mark.1);
        let options = RenderOptions {
            last: Some(MoveMarks { from: vec![at], ..MoveMarks::default() }),
            size: 240,
            ..RenderOptions::default()
        };
        let drawn = render::render_view(Theme::Chak, &view, &options);
        proptest::prop_assert_eq!(drawn.is_ok(), mark.0 < 9 && mark.1 < 9);
    }

    #[test]
    fn any_move_text_gives_marks_on_the_board(text in "\\PC{0,24}", files in 1u8..=12, ranks in 1u8..=12) {
        let m = render::marks_from_text(&text, files, ranks);
        for at in m.from.iter().chain(&m.to).chain(&m.captures).chain(&m.removed) {
            proptest::prop_assert!(at.file < files && at.rank < ranks);
        }
    }
}

#[test]
fn pictures_are_deterministic_whatever_was_drawn_before() {
    let options = RenderOptions {
        caption: Some(caption()),
        ..RenderOptions::default()
    };
    let first = render::render_view(Theme::Chesscala, &views::chesscala_start(), &options);
    for size in [200, 333, 720] {
        let other = RenderOptions {
            size,
            side: Some(Color::Black),
            ..options.clone()
        };
        render::render_view(Theme::Chesscala, &views::chesscala_start(), &other).unwrap();
    }
    let again = render::render_view(Theme::Chesscala, &views::chesscala_start(), &options);
    assert_eq!(first, again);
}

fn run_pigeon(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_pigeon"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn the_render_and_gif_commands_write_their_files() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let png = dir.join("render-e3e4.png");
    let png_arg = png.to_str().expect("a UTF-8 path");
    let output = run_pigeon(&[
        "render", "chak", "start", "--last", "e3e4", "--side", "white", "-o", png_arg,
    ]);
    assert!(output.status.success(), "{output:?}");
    let image = decode(&std::fs::read(&png).expect("the PNG was written"));
    let white = RenderOptions {
        side: Some(Color::White),
        ..RenderOptions::default()
    };
    let (x, y, s) = square(Theme::Chak, &white, "e4");
    assert_eq!(pixel(&image, x + 1, y + s / 2), HIGHLIGHT);

    let gif = dir.join("replay.gif");
    let gif_arg = gif.to_str().expect("a UTF-8 path");
    let output = run_pigeon(&["gif", "chak", "e3e4", "e7e6", "-o", gif_arg]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        frame_delays(&std::fs::read(&gif).expect("the GIF")).len(),
        3
    );

    let output = run_pigeon(&["render", "chak", "no position", "-o", png_arg]);
    assert!(!output.status.success());
    let output = run_pigeon(&["gif", "chak", "e3e5", "-o", gif_arg]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("e3e5"));
}

/// Every position of every game's oracle vectors draws without error, seen from one side or
/// the other in turn, with its first legal move highlighted, and decodes to one size per game.
/// (A small size keeps this quick; the drawing code is the same at every size.)
#[test]
fn every_vector_position_of_every_game_renders() {
    let files = [
        (Variant::Chak, "chak-vectors.jsonl", "fen"),
        (Variant::Shakti, "shakti-vectors.jsonl", "position"),
        (Variant::Chad, "chad-vectors.jsonl", "position"),
        (Variant::Chesscala, "chesscala-vectors.jsonl", "position"),
    ];
    for (variant, file, key) in files {
        let text = crate::common::read_data(file);
        let mut sizes = std::collections::BTreeSet::new();
        let mut count = 0;
        for (line, record) in text.lines().enumerate() {
            let record: serde_json::Value = serde_json::from_str(record).expect("JSON");
            let position_text = record[key].as_str().expect("a position text");
            let position = VariantPosition::from_text(variant, position_text)
                .unwrap_or_else(|e| panic!("{file} line {}: {e}", line + 1));
            let last = position
                .legal_moves()
                .first()
                .map(|mv| position.move_marks(mv));
            let side = if line % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let options = RenderOptions {
                last,
                side: Some(side),
                size: 240,
                ..RenderOptions::default()
            };
            let png = render::render_position(&position, &options)
                .unwrap_or_else(|e| panic!("{file} line {}: {e}", line + 1));
            sizes.insert(decode(&png).dimensions());
            count += 1;
        }
        assert!(count >= 300, "{file}: {count} positions");
        assert_eq!(
            sizes.len(),
            1,
            "{file}: every picture of a game has one size: {sizes:?}"
        );
    }
}
