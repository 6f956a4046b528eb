//! Glyphs drawn by code instead of a font, so they fill their cell exactly
//! and join their neighbours with no gaps at any size: box drawing
//! (U+2500–257F), block elements (U+2580–259F), braille (U+2800–28FF), the
//! Powerline separators (U+E0B0–E0B3), and the underline and strikeout
//! decorations. They reach the GPU as glyphon
//! custom glyphs (single-channel masks, coloured per use).

mod blocks;
mod box_drawing;
mod decorations;

use crate::font::CellMetrics;
use crate::frame::UnderlineStyle;

/// First box-drawing code point; ids 0..160 cover box drawing and blocks.
const BOX_START: u32 = 0x2500;
/// Last block-element code point.
const BLOCK_END: u32 = 0x259F;
/// First braille code point.
const BRAILLE_START: u32 = 0x2800;
/// Last braille code point.
const BRAILLE_END: u32 = 0x28FF;
/// Custom-glyph id of the first braille pattern (after box + blocks).
const BRAILLE_ID: u16 = 160;
/// First Powerline separator code point (private use area, but every
/// shell prompt theme uses these four).
const POWERLINE_START: u32 = 0xE0B0;
/// Last Powerline separator drawn procedurally.
const POWERLINE_END: u32 = 0xE0B3;
/// Custom-glyph id of the first Powerline separator (after braille).
const POWERLINE_ID: u16 = BRAILLE_ID + 256;
/// Custom-glyph ids from here on are decorations, not characters.
const DECORATION_ID: u16 = 1000;

/// A decoration drawn over a cell's full rectangle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Decoration {
    /// An underline in the given (non-`None`) style.
    Underline(UnderlineStyle),
    /// The strikeout line.
    Strikeout,
}

impl Decoration {
    /// The custom-glyph id for this decoration.
    pub fn id(self) -> u16 {
        DECORATION_ID
            + match self {
                Decoration::Underline(UnderlineStyle::None) => 0,
                Decoration::Underline(UnderlineStyle::Single) => 1,
                Decoration::Underline(UnderlineStyle::Double) => 2,
                Decoration::Underline(UnderlineStyle::Curly) => 3,
                Decoration::Underline(UnderlineStyle::Dotted) => 4,
                Decoration::Underline(UnderlineStyle::Dashed) => 5,
                Decoration::Strikeout => 6,
            }
    }

    fn from_id(id: u16) -> Option<Self> {
        Some(match id.checked_sub(DECORATION_ID)? {
            1 => Decoration::Underline(UnderlineStyle::Single),
            2 => Decoration::Underline(UnderlineStyle::Double),
            3 => Decoration::Underline(UnderlineStyle::Curly),
            4 => Decoration::Underline(UnderlineStyle::Dotted),
            5 => Decoration::Underline(UnderlineStyle::Dashed),
            6 => Decoration::Strikeout,
            _ => return None,
        })
    }
}

/// The custom-glyph id that draws `ch`, if it is drawn procedurally.
pub(crate) fn glyph_id(ch: char) -> Option<u16> {
    let cp = u32::from(ch);
    match cp {
        BOX_START..=BLOCK_END => u16::try_from(cp - BOX_START).ok(),
        BRAILLE_START..=BRAILLE_END => u16::try_from(cp - BRAILLE_START)
            .ok()
            .map(|i| BRAILLE_ID + i),
        POWERLINE_START..=POWERLINE_END => u16::try_from(cp - POWERLINE_START)
            .ok()
            .map(|i| POWERLINE_ID + i),
        _ => None,
    }
}

/// A single-channel coverage mask being drawn.
pub(crate) struct Mask {
    pub width: usize,
    pub height: usize,
    pub data: Vec<u8>,
}

impl Mask {
    fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            data: vec![0; width * height],
        }
    }

    /// Fills `[x0, x1) × [y0, y1)`, clipped to the mask, at full coverage.
    fn fill(&mut self, x0: i64, y0: i64, x1: i64, y1: i64) {
        self.fill_alpha(x0, y0, x1, y1, u8::MAX);
    }

    fn fill_alpha(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, alpha: u8) {
        let (w, h) = (self.width as i64, self.height as i64);
        let (x0, x1) = (x0.clamp(0, w), x1.clamp(0, w));
        let (y0, y1) = (y0.clamp(0, h), y1.clamp(0, h));
        for y in y0..y1 {
            let row = y as usize * self.width;
            for x in x0..x1 {
                let px = &mut self.data[row + x as usize];
                *px = (*px).max(alpha);
            }
        }
    }

    /// Raises every pixel to `coverage(pixel centre x, y)` (0..=1) if higher.
    fn paint(&mut self, coverage: impl Fn(f32, f32) -> f32) {
        for y in 0..self.height {
            for x in 0..self.width {
                let c = coverage(x as f32 + 0.5, y as f32 + 0.5).clamp(0.0, 1.0);
                let v = (c * 255.0).round() as u8;
                let px = &mut self.data[y * self.width + x];
                *px = (*px).max(v);
            }
        }
    }
}

/// Rasterises custom glyph `id` at `width × height` pixels, or `None` for
/// an unknown id or an empty size.
pub(crate) fn rasterize(
    id: u16,
    width: u16,
    height: u16,
    metrics: &CellMetrics,
) -> Option<Vec<u8>> {
    if width == 0 || height == 0 {
        return None;
    }
    let mut mask = Mask::new(usize::from(width), usize::from(height));
    if let Some(decoration) = Decoration::from_id(id) {
        decorations::draw(&mut mask, decoration, metrics);
    } else if id < BRAILLE_ID {
        let ch = char::from_u32(BOX_START + u32::from(id))?;
        if !(box_drawing::draw(&mut mask, ch, metrics.stroke) || blocks::draw_block(&mut mask, ch))
        {
            return None;
        }
    } else if id < POWERLINE_ID {
        blocks::draw_braille(&mut mask, (id - BRAILLE_ID) as u8);
    } else if id <= POWERLINE_ID + (POWERLINE_END - POWERLINE_START) as u16 {
        blocks::draw_powerline(&mut mask, id - POWERLINE_ID, metrics.stroke);
    } else {
        return None;
    }
    Some(mask.data)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const METRICS: CellMetrics = CellMetrics {
        width: 10,
        height: 20,
        baseline: 15,
        underline_top: 17,
        stroke: 1,
        strikeout_top: 10,
    };

    #[test]
    fn every_procedural_char_rasterises() {
        for cp in (0x2500..=0x259F)
            .chain(0x2800..=0x28FF)
            .chain(0xE0B0..=0xE0B3)
        {
            let ch = char::from_u32(cp).expect("valid");
            let id = glyph_id(ch).expect("procedural");
            let mask = rasterize(id, 10, 20, &METRICS);
            let mask = mask.unwrap_or_else(|| panic!("U+{cp:04X} did not rasterise"));
            assert_eq!(mask.len(), 200);
            if cp != 0x2800 {
                assert!(mask.iter().any(|&a| a > 0), "U+{cp:04X} is empty");
            }
        }
        assert!(glyph_id('a').is_none());
        assert!(rasterize(0, 0, 5, &METRICS).is_none());
    }

    #[test]
    fn decorations_round_trip_ids() {
        for style in [
            UnderlineStyle::Single,
            UnderlineStyle::Double,
            UnderlineStyle::Curly,
            UnderlineStyle::Dotted,
            UnderlineStyle::Dashed,
        ] {
            let d = Decoration::Underline(style);
            assert_eq!(Decoration::from_id(d.id()), Some(d));
        }
        assert_eq!(
            Decoration::from_id(Decoration::Strikeout.id()),
            Some(Decoration::Strikeout)
        );
    }

    #[test]
    fn vertical_line_spans_full_height_and_horizontal_full_width() {
        let v = rasterize(glyph_id('│').expect("box"), 10, 20, &METRICS).expect("mask");
        for y in 0..20 {
            assert!(v[y * 10..y * 10 + 10].contains(&255), "gap at row {y}");
        }
        let h = rasterize(glyph_id('─').expect("box"), 10, 20, &METRICS).expect("mask");
        for x in 0..10 {
            assert!((0..20).any(|y| h[y * 10 + x] == 255), "gap at column {x}");
        }
    }
}
