//! Tables as pictures (a tournament's standings): a title band in the theme's frame colour,
//! a header row, then the rows striped in the theme's light and dark squares, the text drawn
//! with the embedded font like the board's coordinates. Pure and deterministic like the
//! boards.

use resvg::tiny_skia::{Paint, Pixmap, Rect, Transform};

use super::RenderError;
use super::text::{self, Anchor, Weight};
use super::theme::{Rgb, Theme};
use crate::rules::Coord;

/// Text size of the rows, in pixels.
const PX: f32 = 18.0;
/// Height of a row.
const ROW: f32 = 32.0;
/// Space left and right of each cell's text.
const PAD: f32 = 12.0;
/// Most rows drawn (a longer table is cut, its last row saying how many more there are).
pub const MOST_ROWS: usize = 64;

/// A table to draw: a title, the column names, and the rows (one text per column).
/// Columns after the first two are numbers, aligned right.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Table {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Rows drawn greyed, by index.
    pub greyed: Vec<usize>,
}

fn fill(canvas: &mut Pixmap, (x, y, w, h): (f32, f32, f32, f32), color: Rgb) {
    let mut paint = Paint::default();
    paint.set_color(color.skia_alpha(255));
    if let Some(rect) = Rect::from_xywh(x, y, w, h) {
        canvas.fill_rect(rect, &paint, Transform::identity(), None);
    }
}

/// Draws `table` in `theme`'s colours as PNG bytes.
///
/// # Errors
/// [`RenderError::Encode`] when the PNG cannot be written.
pub fn render_table(theme: Theme, table: &Table) -> Result<Vec<u8>, RenderError> {
    let palette = theme.palette();
    let light = theme.square_color(Coord::new(0, 1));
    let dark = theme.square_color(Coord::new(0, 0));
    let ink = Rgb(0x1c, 0x1c, 0x1c);
    let grey = Rgb(0x80, 0x80, 0x80);
    let rows = &table.rows[..table.rows.len().min(MOST_ROWS)];
    let columns = table.header.len();
    let mut widths: Vec<f32> = table
        .header
        .iter()
        .map(|name| text::width(name, PX, Weight::Bold))
        .collect();
    for row in rows {
        for (column, cell) in row.iter().enumerate().take(columns) {
            widths[column] = widths[column].max(text::width(cell, PX, Weight::Regular));
        }
    }
    let content: f32 = widths.iter().map(|w| w + 2.0 * PAD).sum();
    let title_width = text::width(&table.title, PX * 1.2, Weight::Bold) + 2.0 * PAD;
    let width = content.max(title_width).ceil();
    let height = ROW * (rows.len() as f32 + 2.0);
    let mut canvas = Pixmap::new(width as u32, height as u32)
        .ok_or_else(|| RenderError::Encode(String::from("a table too large to draw")))?;
    fill(&mut canvas, (0.0, 0.0, width, ROW), palette.frame);
    text::draw(
        &mut canvas,
        &table.title,
        PAD,
        ROW * 0.7,
        PX * 1.2,
        Weight::Bold,
        palette.text,
        Anchor::Start,
    );
    fill(&mut canvas, (0.0, ROW, width, ROW), dark);
    for index in 0..rows.len() {
        let stripe = if index % 2 == 0 { light } else { dark };
        let y = ROW * (index as f32 + 2.0);
        fill(&mut canvas, (0.0, y, width, ROW), stripe);
    }
    let mut x = 0.0;
    for (column, column_width) in widths.iter().enumerate() {
        // Rank and name read from the left; numbers line up on the right.
        let (anchor, at) = if column < 2 {
            (Anchor::Start, x + PAD)
        } else {
            (Anchor::End, x + PAD + column_width)
        };
        text::draw(
            &mut canvas,
            &table.header[column],
            at,
            ROW * 1.7,
            PX,
            Weight::Bold,
            ink,
            anchor,
        );
        for (index, row) in rows.iter().enumerate() {
            let Some(cell) = row.get(column) else {
                continue;
            };
            let color = if table.greyed.contains(&index) {
                grey
            } else {
                ink
            };
            let baseline = ROW * (index as f32 + 2.7);
            text::draw(
                &mut canvas,
                cell,
                at,
                baseline,
                PX,
                Weight::Regular,
                color,
                anchor,
            );
        }
        x += column_width + 2.0 * PAD;
    }
    encode_rgb(&canvas)
}

/// An opaque pixmap as an RGB PNG.
fn encode_rgb(canvas: &Pixmap) -> Result<Vec<u8>, RenderError> {
    let encode_error = |error: png::EncodingError| RenderError::Encode(error.to_string());
    let rgb: Vec<u8> = canvas
        .data()
        .chunks_exact(4)
        .flat_map(|pixel| [pixel[0], pixel[1], pixel[2]])
        .collect();
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, canvas.width(), canvas.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(encode_error)?;
    writer.write_image_data(&rgb).map_err(encode_error)?;
    writer.finish().map_err(encode_error)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_a_png_of_its_rows() {
        let table = Table {
            title: String::from("Autumn Chak"),
            header: ["#", "Player", "Pts"].map(String::from).to_vec(),
            rows: vec![
                ["1", "alice", "2½"].map(String::from).to_vec(),
                ["2", "bob", "1"].map(String::from).to_vec(),
            ],
            greyed: vec![1],
        };
        let png = render_table(Theme::Chak, &table).expect("draws");
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let reader = decoder.read_info().expect("a PNG");
        let info = reader.info();
        assert_eq!(info.height, (ROW * 4.0) as u32);
        assert!(info.width > 100);
    }
}
