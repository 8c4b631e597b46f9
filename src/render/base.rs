//! The static board of each game: frame, squares, zones and coordinates, drawn as SVG once
//! per theme, size and viewpoint and cached as a pixmap the positions are drawn on.

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use resvg::tiny_skia::Pixmap;

use super::RenderError;
use super::art::{self, Cache, FONT_FAMILY, cached};
use super::board::{BASE_LIMIT, Layout, tile_inset};
use super::theme::{
    self, CHAD_GRID, CHESSCALA_ARROW, CHESSCALA_KING_FIELDS, ChadZone, SHAKTI_TILE_EDGE, Theme,
};
use crate::rules::Coord;

/// The static board of a layout: frame, squares, zones and coordinates.
pub(super) fn base(layout: &Layout) -> Result<Arc<Pixmap>, RenderError> {
    static BASES: Cache<(Theme, u32, bool)> = OnceLock::new();
    cached(
        &BASES,
        BASE_LIMIT,
        &(layout.theme, layout.sq, layout.flipped),
        || {
            art::rasterise(
                &base_svg(layout),
                layout.width,
                layout.height - layout.caption,
            )
        },
    )
}

/// The static board as an SVG document in pixel units.
fn base_svg(layout: &Layout) -> String {
    let theme = layout.theme;
    let palette = theme.palette();
    let (w, h) = (layout.width, layout.height - layout.caption);
    let sq = layout.sq;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">
<rect width="{w}" height="{h}" fill="{frame}"/>
"#,
        frame = palette.frame.hex()
    );
    let board_w = u32::from(layout.files) * sq;
    let board_h = u32::from(layout.ranks) * sq;
    let m = layout.margin;
    if theme.tiled() {
        // Tiles over the ground: a hole is then just a square painted in the ground's colour.
        let _ = writeln!(
            svg,
            r#"<rect x="{m}" y="{m}" width="{board_w}" height="{board_h}" fill="{}"/>"#,
            palette.hole.hex()
        );
        let inset = tile_inset(sq);
        let side = sq - 2 * inset;
        for at in layout.coords() {
            let (x, y) = layout.base_origin(at);
            let _ = writeln!(
                svg,
                r#"<rect x="{}" y="{}" width="{side}" height="{side}" rx="{r}" fill="{}"/><rect x="{}" y="{}" width="{}" height="{}" rx="{r}" fill="{}"/>"#,
                x + inset,
                y + inset,
                SHAKTI_TILE_EDGE.hex(),
                x + inset + 2,
                y + inset + 2,
                side - 4,
                side - 4,
                theme.square_color(at).hex(),
                r = sq / 10,
            );
        }
    } else {
        for at in layout.coords() {
            let (x, y) = layout.base_origin(at);
            let _ = writeln!(
                svg,
                r#"<rect x="{x}" y="{y}" width="{sq}" height="{sq}" fill="{}"/>"#,
                theme.square_color(at).hex()
            );
        }
    }
    match theme {
        Theme::Chak => chak_zones(&mut svg, layout),
        Theme::Chad => chad_zones(&mut svg, layout),
        Theme::Chesscala => chesscala_zones(&mut svg, layout),
        Theme::Shakti => {}
    }
    coordinates(&mut svg, layout);
    svg.push_str("</svg>");
    svg
}

/// The screen rectangle covering two squares and everything between them.
fn span(layout: &Layout, a: Coord, b: Coord) -> (u32, u32, u32, u32) {
    let (ax, ay) = layout.base_origin(a);
    let (bx, by) = layout.base_origin(b);
    let (x, y) = (ax.min(bx), ay.min(by));
    (x, y, ax.max(bx) + layout.sq - x, ay.max(by) + layout.sq - y)
}

fn outline(svg: &mut String, rect: (u32, u32, u32, u32), color: &str, width: f32) {
    let (x, y, w, h) = rect;
    let half = width / 2.0;
    let _ = writeln!(
        svg,
        r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{color}" stroke-width="{width}"/>"#,
        x as f32 + half,
        y as f32 + half,
        w as f32 - width,
        h as f32 - width,
    );
}

/// Chak: waves on the river, temple outlines, a stepped pyramid on each altar.
fn chak_zones(svg: &mut String, layout: &Layout) {
    let sq = layout.sq as f32;
    let (_, y0) = layout.base_origin(Coord::new(0, 4));
    let (x0, y0) = (layout.margin as f32, y0 as f32);
    let board_w = f32::from(layout.files) * sq;
    for level in [0.28f32, 0.78] {
        let y = y0 + sq * level;
        let amp = sq * 0.07;
        let mut d = format!("M{x0} {y}");
        let step = sq / 4.0;
        let mut x = x0;
        let mut up = true;
        while x < x0 + board_w - 0.5 {
            let cy = if up { y - amp } else { y + amp };
            let _ = write!(d, " Q{} {cy} {} {y}", x + step / 2.0, x + step);
            x += step;
            up = !up;
        }
        let _ = writeln!(
            svg,
            r##"<path d="{d}" fill="none" stroke="#e4f3f8" stroke-opacity="0.75" stroke-width="{}"/>"##,
            (sq / 30.0).max(1.5)
        );
    }
    for (a, b) in [
        (Coord::new(3, 0), Coord::new(5, 2)),
        (Coord::new(3, 6), Coord::new(5, 8)),
    ] {
        outline(svg, span(layout, a, b), "#8e3f22", (sq / 22.0).max(2.0));
    }
    for altar in [Coord::new(4, 1), Coord::new(4, 7)] {
        let (x, y) = layout.base_origin(altar);
        // A stepped pyramid with a shrine, in tenths of the square; altars look the same from
        // both sides, so it is not turned.
        const PYRAMID: [(f32, f32); 16] = [
            (1.0, 9.0),
            (9.0, 9.0),
            (9.0, 7.0),
            (8.0, 7.0),
            (8.0, 5.0),
            (7.0, 5.0),
            (7.0, 3.0),
            (6.0, 3.0),
            (6.0, 1.5),
            (4.0, 1.5),
            (4.0, 3.0),
            (3.0, 3.0),
            (3.0, 5.0),
            (2.0, 5.0),
            (2.0, 7.0),
            (1.0, 7.0),
        ];
        let points: Vec<String> = PYRAMID
            .iter()
            .map(|(px, py)| {
                format!(
                    "{},{}",
                    x as f32 + px * sq / 10.0,
                    y as f32 + py * sq / 10.0
                )
            })
            .collect();
        let _ = writeln!(
            svg,
            r##"<polygon points="{}" fill="#e7b48e" fill-opacity="0.85"/>"##,
            points.join(" ")
        );
    }
}

/// Chad: grid lines (the board is uncheckered) and the castles outlined.
fn chad_zones(svg: &mut String, layout: &Layout) {
    let sq = layout.sq;
    let m = layout.margin;
    let board_w = u32::from(layout.files) * sq;
    let board_h = u32::from(layout.ranks) * sq;
    let mut d = String::new();
    for i in 0..=u32::from(layout.files) {
        let _ = write!(d, "M{} {m} v{board_h} ", m + i * sq);
    }
    for i in 0..=u32::from(layout.ranks) {
        let _ = write!(d, "M{m} {} h{board_w} ", m + i * sq);
    }
    let _ = writeln!(
        svg,
        r#"<path d="{d}" fill="none" stroke="{}" stroke-width="1"/>"#,
        CHAD_GRID.hex()
    );
    // Wall squares get a brick hint, so walls read as walls without colour.
    for at in layout.coords() {
        if theme::chad_zone(at) == ChadZone::Wall {
            let (x, y) = layout.base_origin(at);
            let (x, y, s) = (x as f32, y as f32, sq as f32);
            let _ = writeln!(
                svg,
                r##"<path d="M{x} {a} h{s} M{x} {b} h{s} M{c} {y} v{q} M{d2} {a} v{q} M{c} {b} v{q}" fill="none" stroke="#b9a57d" stroke-width="1"/>"##,
                a = y + s / 3.0,
                b = y + 2.0 * s / 3.0,
                c = x + s / 2.0,
                d2 = x + s / 4.0,
                q = s / 3.0,
            );
        }
    }
    for (a, b) in [
        (Coord::new(2, 2), Coord::new(4, 4)),
        (Coord::new(7, 7), Coord::new(9, 9)),
    ] {
        outline(
            svg,
            span(layout, a, b),
            "#6d5532",
            (sq as f32 / 18.0).max(2.0),
        );
    }
}

/// Chesscala: the circuits' dividers and direction arrows, and the kings' fields.
fn chesscala_zones(svg: &mut String, layout: &Layout) {
    let sq = layout.sq as f32;
    let m = layout.margin as f32;
    let board_h = f32::from(layout.ranks) * sq;
    // Dividers between the circuits.
    for file in [2u8, 4] {
        let (x, _) = layout.base_origin(Coord::new(file, 0));
        let (x2, _) = layout.base_origin(Coord::new(file - 1, 0));
        let x = (x.max(x2)) as f32;
        let _ = writeln!(
            svg,
            r#"<rect x="{}" y="{m}" width="{}" height="{board_h}" fill="{}"/>"#,
            x - sq / 40.0,
            sq / 20.0,
            layout.theme.palette().frame.hex()
        );
    }
    // Arrowheads along each circuit: up the right file, across at the top, down the left file,
    // across at the bottom.
    let last = layout.ranks - 1;
    for left in [0u8, 2, 4] {
        let right = left + 1;
        let mut cycle: Vec<Coord> = (0..=last).map(|rank| Coord::new(right, rank)).collect();
        cycle.extend((0..=last).rev().map(|rank| Coord::new(left, rank)));
        for (i, &from) in cycle.iter().enumerate() {
            let to = cycle[(i + 1) % cycle.len()];
            let (fx, fy) = layout.base_centre(from);
            let (tx, ty) = layout.base_centre(to);
            let (dx, dy) = ((tx - fx) / sq, (ty - fy) / sq);
            let (mx, my, color) = if from.file == to.file {
                // Between two ranks, near the edge the file shares with its partner.
                let (px, _) = layout.base_centre(Coord::new(
                    if from.file == left { right } else { left },
                    from.rank,
                ));
                (fx + (px - fx) * 0.40, (fy + ty) / 2.0, CHESSCALA_ARROW)
            } else {
                // The turn at the board's edge: in the margin, between the two file letters.
                let (_, ey) = layout.base_centre(from);
                let outward = if (from.rank == last) != layout.flipped {
                    -1.0
                } else {
                    1.0
                };
                (
                    (fx + tx) / 2.0,
                    ey + outward * (sq + m) * 0.5,
                    layout.theme.palette().text,
                )
            };
            let size = sq * 0.11;
            let (px, py) = (-dy, dx);
            let _ = writeln!(
                svg,
                r#"<path d="M{} {} L{} {} L{} {} Z" fill="{}" fill-opacity="0.8"/>"#,
                mx + dx * size,
                my + dy * size,
                mx - dx * size + px * size,
                my - dy * size + py * size,
                mx - dx * size - px * size,
                my - dy * size - py * size,
                color.hex()
            );
        }
    }
    // Kings' fields, framed in their owner's colour with a contrasting edge.
    let width = (sq / 22.0).max(2.0);
    for (owner, a, b) in CHESSCALA_KING_FIELDS {
        let colors = layout.theme.pieces(owner);
        let rect = span(layout, a, b);
        let (x, y, w, h) = rect;
        let inset = (x + 3, y + 3, w - 6, h - 6);
        outline(svg, inset, &colors.line.hex(), width + 2.0);
        outline(
            svg,
            (inset.0 + 1, inset.1 + 1, inset.2 - 2, inset.3 - 2),
            &colors.body.hex(),
            width,
        );
    }
}

/// File letters above and below the board, rank numbers left and right.
fn coordinates(svg: &mut String, layout: &Layout) {
    let m = layout.margin as f32;
    let font = (m * 0.6).round();
    let fill = layout.theme.palette().text.hex();
    let sq = layout.sq as f32;
    let bottom = m + f32::from(layout.ranks) * sq;
    let right = m + f32::from(layout.files) * sq;
    let mut text = |x: f32, y: f32, label: &str| {
        let _ = writeln!(
            svg,
            r#"<text x="{x}" y="{}" font-family="{FONT_FAMILY}" font-weight="bold" font-size="{font}" text-anchor="middle" fill="{fill}">{label}</text>"#,
            y + font * 0.36
        );
    };
    for file in 0..layout.files {
        let (x, _) = layout.base_centre(Coord::new(file, 0));
        let label = char::from(b'a' + file).to_string();
        text(x, m / 2.0, &label);
        text(x, bottom + m / 2.0, &label);
    }
    for rank in 0..layout.ranks {
        let (_, y) = layout.base_centre(Coord::new(0, rank));
        let label = (rank + 1).to_string();
        text(m / 2.0, y, &label);
        text(right + m / 2.0, y, &label);
    }
}
