//! The demo's on-screen text: a grid of character cells over the whole image that the scene's
//! fragment shader draws with an 8x8 bitmap font (basic Latin of the `font8x8` crate, copied
//! into the slot's graph buffer once). The CPU fills the grid each frame without allocating
//! (fixed arrays, formatting into a stack buffer).

use std::io::Write as _;

/// The most columns and rows the grid has (cells beyond the image are not drawn).
pub const MAX_COLUMNS: usize = 160;
/// See [`MAX_COLUMNS`].
pub const MAX_ROWS: usize = 96;
/// Cells in the grid, one `u32` each in the shader's buffer.
pub const MAX_CELLS: usize = MAX_COLUMNS * MAX_ROWS;
/// Glyphs of the font (ASCII 0..128), two `u32` each.
pub const FONT_WORDS: usize = 2 * 128;

/// Text colors (the shader's palette, by index).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Color {
    /// Plain text.
    White = 1,
    /// The graph's frame-interval columns.
    Green = 2,
    /// The graph's CPU-wait line.
    Yellow = 3,
    /// The graph's latency line.
    Cyan = 4,
    /// The graph's reference line and scale.
    Grey = 5,
}

/// The character grid of one frame: `cell_px` pixels per cell, as many cells as fit.
pub struct HudText {
    cells: Box<[u32; MAX_CELLS]>,
    columns: usize,
    rows: usize,
    cell_px: u32,
}

impl Default for HudText {
    fn default() -> Self {
        Self {
            cells: Box::new([0; MAX_CELLS]),
            columns: 0,
            rows: 0,
            cell_px: 8,
        }
    }
}

impl HudText {
    /// Clears the grid for an image of `width` x `height` pixels: 8-pixel cells, 16 on images
    /// 1600 pixels wide or more.
    pub fn begin(&mut self, width: u32, height: u32) {
        self.cell_px = if width >= 1600 { 16 } else { 8 };
        self.columns = ((width / self.cell_px) as usize).min(MAX_COLUMNS);
        self.rows = ((height / self.cell_px) as usize).min(MAX_ROWS);
        self.cells[..self.columns * self.rows].fill(0);
    }

    /// Pixels per cell side.
    pub fn cell_px(&self) -> u32 {
        self.cell_px
    }

    /// Rows of the grid.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Writes `text` at `row`, `column`; what falls outside the grid is dropped.
    pub fn put(&mut self, row: usize, column: usize, text: &[u8], color: Color) {
        if row >= self.rows {
            return;
        }
        for (k, &ch) in text.iter().enumerate() {
            let c = column + k;
            if c >= self.columns {
                break;
            }
            self.cells[row * self.columns + c] = u32::from(ch & 0x7f) | (color as u32) << 8;
        }
    }

    /// Formats `args` into a stack buffer and writes it at `row`, `column` (no allocation).
    pub fn put_fmt(&mut self, row: usize, column: usize, color: Color, args: std::fmt::Arguments) {
        let mut buffer = [0u8; MAX_COLUMNS];
        let mut cursor = std::io::Cursor::new(&mut buffer[..]);
        // A line longer than the buffer is cut there (write_fmt reports the short write).
        let _ = cursor.write_fmt(args);
        let len = cursor.position() as usize;
        self.put(row, column, &buffer[..len], color);
    }

    /// `[columns, rows, cell pixels, 0]`, the shader's `text_info`.
    pub fn info(&self) -> [u32; 4] {
        [self.columns as u32, self.rows as u32, self.cell_px, 0]
    }

    /// The cells in use, row by row: ASCII code in bits 0..8, color index in bits 8..16, 0 for
    /// an empty cell.
    pub fn cells(&self) -> &[u32] {
        &self.cells[..self.columns * self.rows]
    }
}

/// The font as the shader reads it: glyph `g`'s rows 0..4 in word `2g` and rows 4..8 in word
/// `2g + 1`, one byte per row, bit 0 the leftmost pixel.
pub fn font_words() -> [u32; FONT_WORDS] {
    let mut words = [0u32; FONT_WORDS];
    for (g, glyph) in font8x8::legacy::BASIC_LEGACY.iter().enumerate() {
        words[2 * g] = u32::from_le_bytes([glyph[0], glyph[1], glyph[2], glyph[3]]);
        words[2 * g + 1] = u32::from_le_bytes([glyph[4], glyph[5], glyph[6], glyph[7]]);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lands_in_its_cells_with_its_color() {
        let mut hud = HudText::default();
        hud.begin(640, 480);
        assert_eq!(hud.info(), [80, 60, 8, 0]);
        hud.put_fmt(2, 3, Color::Cyan, format_args!("fps {:.1}", 59.94));
        let row = &hud.cells()[2 * 80..3 * 80];
        let text: String = row[3..11]
            .iter()
            .map(|c| (c & 0x7f) as u8 as char)
            .collect();
        assert_eq!(text, "fps 59.9");
        assert!(row[3..11].iter().all(|c| c >> 8 == Color::Cyan as u32));
        assert_eq!(row[11], 0, "nothing after the text");
        hud.begin(640, 480);
        assert!(hud.cells().iter().all(|&c| c == 0), "begin clears");
    }

    #[test]
    fn text_outside_the_grid_is_dropped() {
        let mut hud = HudText::default();
        hud.begin(64, 16);
        hud.put(1, 6, b"abcdef", Color::White);
        hud.put(2, 0, b"x", Color::White);
        assert_eq!(hud.cells().iter().filter(|&&c| c != 0).count(), 2);
    }

    #[test]
    fn the_font_has_glyphs_for_digits() {
        let words = font_words();
        let zero = usize::from(b'0');
        assert_ne!(words[2 * zero] | words[2 * zero + 1], 0);
        assert_eq!(words[2 * usize::from(b' ')], 0);
    }
}
