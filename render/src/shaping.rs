//! One shaped `Buffer` per distinct character + face + width, shared by
//! every cell that shows it, with the offsets that put its glyph on the
//! cell grid whatever font it came from; and one per distinct run of cells
//! the font joins with ligatures.

use std::collections::HashMap;

use glyphon::Buffer;

use crate::font::Fonts;
use crate::frame::{Cell, CellFlags};

/// Distinct shaped glyphs kept before the cache is dropped and rebuilt:
/// a busy screen uses a few hundred; this bounds memory against a stream
/// of unique combining sequences.
pub(crate) const MAX_SHAPED: usize = 8192;

/// A fallback glyph wider than its cells by more than this factor is
/// scaled down to fit (emoji and some symbol fonts); smaller overshoots
/// are left alone so ordinary text keeps its exact size.
const SHRINK_THRESHOLD: f32 = 1.15;

/// The face and width a glyph is shaped for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Style(u8);

impl Style {
    fn of(cell: &Cell) -> Self {
        let mut bits = 0;
        if cell.flags.contains(CellFlags::BOLD) {
            bits |= 1;
        }
        if cell.flags.contains(CellFlags::ITALIC) {
            bits |= 2;
        }
        if cell.flags.contains(CellFlags::WIDE) {
            bits |= 4;
        }
        Self(bits)
    }

    fn bold(self) -> bool {
        self.0 & 1 != 0
    }
    fn italic(self) -> bool {
        self.0 & 2 != 0
    }
    fn cells(self) -> u32 {
        if self.0 & 4 != 0 {
            2
        } else {
            1
        }
    }
}

/// A shaped glyph and where it goes relative to its cell's top-left corner.
pub(crate) struct Shaped {
    pub buffer: Buffer,
    /// Horizontal offset (whole pixels) that centres a narrower fallback
    /// glyph in its cells.
    pub x_offset: f32,
    /// Vertical offset (whole pixels) that puts the glyph's baseline on
    /// the grid's baseline.
    pub y_offset: f32,
    /// Scale that shrinks an over-wide glyph into its cells.
    pub scale: f32,
}

/// A glyph: the face it comes from and its index there.
type Glyph = (glyphon::fontdb::ID, u16);

/// Marks an empty slot of the ASCII table.
const NO_ID: u32 = u32::MAX;

/// Number of distinct [`Style`]s (bold × italic × wide).
const STYLES: usize = 8;

/// The cache of shaped glyphs, indexed by a dense id rows can hold on to.
pub(crate) struct ShapeCache {
    /// Direct lookup for ASCII, which is most of any terminal screen: no
    /// hashing on the hot path of a full-frame rebuild.
    ascii: Box<[[u32; 128]; STYLES]>,
    singles: HashMap<(char, Style), u32>,
    clusters: HashMap<(Box<str>, Style), u32>,
    /// Runs shaped with ligatures, keyed by the style's digit followed by
    /// the run's text: the joined buffer's id, or `None` where the font
    /// joins nothing and each cell is drawn alone.
    runs: HashMap<Box<str>, Option<u32>>,
    /// Reused to build `runs` keys without allocating on a hit.
    run_key: String,
    shaped: Vec<Shaped>,
}

impl Default for ShapeCache {
    fn default() -> Self {
        Self {
            ascii: Box::new([[NO_ID; 128]; STYLES]),
            singles: HashMap::new(),
            clusters: HashMap::new(),
            runs: HashMap::new(),
            run_key: String::new(),
            shaped: Vec::new(),
        }
    }
}

impl ShapeCache {
    /// Number of shaped glyphs and runs held.
    pub fn len(&self) -> usize {
        self.shaped.len() + self.runs.len()
    }

    /// Drops everything (after a font change, or when the cache is full).
    pub fn clear(&mut self) {
        for table in self.ascii.iter_mut() {
            table.fill(NO_ID);
        }
        self.singles.clear();
        self.clusters.clear();
        self.runs.clear();
        self.shaped.clear();
    }

    /// The glyph with id `id`.
    pub fn get(&self, id: u32) -> Option<&Shaped> {
        self.shaped.get(id as usize)
    }

    /// The id of `cell`'s glyph, shaping it on first use.
    pub fn id_for(&mut self, fonts: &mut Fonts, cell: &Cell) -> u32 {
        let style = Style::of(cell);
        match &cell.zerowidth {
            None if cell.ch.is_ascii() => {
                let slot = usize::from(style.0) % STYLES;
                let index = cell.ch as usize;
                let id = self.ascii[slot][index];
                if id != NO_ID {
                    return id;
                }
                let mut utf8 = [0u8; 4];
                let id = self.shape(fonts, cell.ch.encode_utf8(&mut utf8), style);
                self.ascii[slot][index] = id;
                id
            }
            None => {
                if let Some(&id) = self.singles.get(&(cell.ch, style)) {
                    return id;
                }
                let mut utf8 = [0u8; 4];
                let id = self.shape(fonts, cell.ch.encode_utf8(&mut utf8), style);
                self.singles.insert((cell.ch, style), id);
                id
            }
            Some(marks) => {
                let text: String = std::iter::once(cell.ch)
                    .chain(marks.iter().copied())
                    .collect();
                let key = (text.into_boxed_str(), style);
                if let Some(&id) = self.clusters.get(&key) {
                    return id;
                }
                let id = self.shape(fonts, &key.0, style);
                self.clusters.insert(key, id);
                id
            }
        }
    }

    /// The id of a buffer that draws `cells` (neighbouring cells of one
    /// style, see [`crate::ligature::run_end`]) shaped together with the
    /// font's ligatures, each glyph on its own cell; `None` when the font
    /// joins or changes nothing among them, so each cell is drawn alone
    /// exactly as without ligatures.
    pub fn run_id(&mut self, fonts: &mut Fonts, cells: &[Cell]) -> Option<u32> {
        let style = Style::of(cells.first()?);
        let mut key = std::mem::take(&mut self.run_key);
        key.clear();
        key.push(char::from(b'0' + style.0));
        key.extend(cells.iter().map(|cell| cell.ch));
        let found = match self.runs.get(key.as_str()) {
            Some(&found) => found,
            None => {
                let found = self.shape_run(fonts, cells, &key[1..], style);
                self.runs.insert(key.as_str().into(), found);
                found
            }
        };
        self.run_key = key;
        found
    }

    fn shape_run(
        &mut self,
        fonts: &mut Fonts,
        cells: &[Cell],
        text: &str,
        style: Style,
    ) -> Option<u32> {
        let m = fonts.metrics;
        let buffer = fonts.shape_ligated(text, (style.bold(), style.italic()), m.height as f32);
        let glyphs: Vec<(usize, Glyph)> = buffer
            .layout_runs()
            .flat_map(|run| run.glyphs.iter())
            .map(|g| (g.start, (g.font_id, g.glyph_id)))
            .collect();
        // Every cell is one byte of `text` (ligature candidates are ASCII),
        // so an unchanged run has glyph `i` starting at byte `i`.
        let unchanged = glyphs.len() == cells.len()
            && glyphs
                .iter()
                .zip(cells)
                .enumerate()
                .all(|(i, (&(start, glyph), cell))| {
                    start == i && self.glyph_alone(fonts, cell) == Some(glyph)
                });
        if unchanged {
            return None;
        }
        let line_y = buffer
            .layout_runs()
            .next()
            .map_or(m.baseline as f32, |run| run.line_y);
        self.shaped.push(Shaped {
            buffer,
            x_offset: 0.0,
            y_offset: m.baseline as f32 - line_y.round(),
            scale: 1.0,
        });
        Some((self.shaped.len() - 1) as u32)
    }

    /// The glyph `cell` is drawn with when shaped alone.
    fn glyph_alone(&mut self, fonts: &mut Fonts, cell: &Cell) -> Option<Glyph> {
        let id = self.id_for(fonts, cell);
        let run = self.get(id)?.buffer.layout_runs().next()?;
        run.glyphs.first().map(|g| (g.font_id, g.glyph_id))
    }

    fn shape(&mut self, fonts: &mut Fonts, text: &str, style: Style) -> u32 {
        let m = fonts.metrics;
        let span = (m.width * style.cells()) as f32;
        let face = (style.bold(), style.italic(), is_emoji(text, style));
        let buffer = fonts.shape(text, face, m.height as f32);
        let (advance, line_y) = buffer
            .layout_runs()
            .next()
            .map(|run| (run.line_w, run.line_y))
            .unwrap_or((0.0, m.baseline as f32));
        let scale = if advance > span * SHRINK_THRESHOLD {
            span / advance
        } else {
            1.0
        };
        let x_offset = ((span - advance * scale) / 2.0).max(0.0).round();
        let y_offset = m.baseline as f32 - (line_y * scale).round();
        self.shaped.push(Shaped {
            buffer,
            x_offset,
            y_offset,
            scale,
        });
        (self.shaped.len() - 1) as u32
    }
}

/// Whether `text` wants emoji presentation: an explicit VS16, or a wide
/// character from the pictographic and symbol blocks (wide symbols there
/// are exactly the default-emoji ones).
fn is_emoji(text: &str, style: Style) -> bool {
    if text.contains('\u{FE0F}') {
        return true;
    }
    let Some(first) = text.chars().next().map(u32::from) else {
        return false;
    };
    style.cells() == 2
        && ((0x1F000..=0x1FAFF).contains(&first) || (0x2300..=0x2BFF).contains(&first))
}
