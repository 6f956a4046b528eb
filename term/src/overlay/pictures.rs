//! Pictures an answer names (`![plot](out/plot.png)`), drawn inside the
//! answer below its text: fitted to the panel's width, captioned with the
//! path. What counts as a picture file is `ai_chat_engine::pictures`' rule,
//! the one `k` follows; anything else (a missing file, a text file, a
//! picture that does not decode) shows only the path the answer's text
//! already holds.
//!
//! Each file is decoded once and kept while it is unchanged (same size and
//! modification time), so a streaming answer that re-lays its last block
//! per token neither rereads nor re-decodes it, and the renderer, which
//! keys textures by the decoded pixels, uploads it once.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use ai_chat_engine::image::ImageFormat;
use ai_chat_engine::pictures;
use render::{PicturePixels, Span, StyledLine};

use super::style::Palette;

/// Rows a picture may take at most: about a screen, so a tall picture
/// still leaves its caption and the answer around it in reach.
const MAX_ROWS: usize = 24;
/// Cell size assumed before the window has told its own.
pub const DEFAULT_CELL_PX: (u32, u32) = (9, 18);

/// A picture laid out in an answer's lines.
#[derive(Debug, Clone, PartialEq)]
pub struct LaidPicture {
    /// The first of the blank lines it is drawn over.
    pub line: usize,
    /// Its first column.
    pub col: usize,
    /// The box it is fitted into: columns…
    pub cols: usize,
    /// …and rows (the blank lines reserved for it).
    pub rows: usize,
    /// The decoded picture.
    pub pixels: Arc<PicturePixels>,
}

/// A file's identity for the decode cache: a rewritten file is decoded again.
type Stamp = (u64, Option<SystemTime>);
/// A file's stamp when it was decoded, and its picture if it is one.
type Decoded = (Stamp, Option<Arc<PicturePixels>>);

/// Decoded pictures by path, and what relative paths and cells mean.
#[derive(Debug)]
pub struct AnswerPictures {
    dir: PathBuf,
    cell: (u32, u32),
    decoded: RefCell<HashMap<PathBuf, Decoded>>,
}

impl Default for AnswerPictures {
    fn default() -> Self {
        Self {
            dir: PathBuf::new(),
            cell: DEFAULT_CELL_PX,
            decoded: RefCell::default(),
        }
    }
}

impl AnswerPictures {
    /// Sets where relative paths start and the cell size in pixels; true
    /// when either changed (answers with pictures must be laid out again).
    pub fn set_context(&mut self, dir: &Path, cell: (u32, u32)) -> bool {
        let cell = (cell.0.max(1), cell.1.max(1));
        if self.dir == dir && self.cell == cell {
            return false;
        }
        self.dir = dir.to_path_buf();
        self.cell = cell;
        true
    }

    /// The decoded picture `target` names, from the cache while the file
    /// is unchanged; `None` when it is not a picture koi can draw.
    fn pixels(&self, target: &str) -> Option<Arc<PicturePixels>> {
        let path = pictures::resolve(target, &self.dir);
        let meta = std::fs::metadata(&path).ok()?;
        let stamp = (meta.len(), meta.modified().ok());
        if let Some((seen, pixels)) = self.decoded.borrow().get(&path) {
            if *seen == stamp {
                return pixels.clone();
            }
        }
        let pixels = decode(target, &self.dir);
        self.decoded
            .borrow_mut()
            .insert(path, (stamp, pixels.clone()));
        pixels
    }

    /// Appends the pictures `answer` names to `lines` (an answer `width`
    /// cells wide, its body indented by `indent` cells): blank rows the
    /// picture is drawn over, recorded in `laid`, then its path.
    pub fn lay_out(
        &self,
        answer: &str,
        width: usize,
        indent: usize,
        pal: &Palette,
        lines: &mut Vec<StyledLine>,
        laid: &mut Vec<LaidPicture>,
    ) {
        let inner = width.saturating_sub(indent);
        if inner == 0 {
            return;
        }
        for target in pictures::targets(answer) {
            let Some(pixels) = self.pixels(&target) else {
                continue;
            };
            let (cw, ch) = (f64::from(self.cell.0), f64::from(self.cell.1));
            let (pw, ph) = (f64::from(pixels.width()), f64::from(pixels.height()));
            let cols = ((pw / cw).ceil() as usize).clamp(1, inner);
            let scale = (cols as f64 * cw / pw).min(1.0);
            let rows = ((ph * scale / ch).ceil() as usize).clamp(1, MAX_ROWS);
            let pad = Span::new(" ".repeat(indent), pal.fg);
            lines.push(StyledLine::default());
            laid.push(LaidPicture {
                line: lines.len(),
                col: indent,
                cols,
                rows,
                pixels,
            });
            lines.extend((0..rows).map(|_| StyledLine::new(vec![pad.clone()])));
            let caption = Span {
                italic: true,
                ..Span::new(target.clone(), pal.dim)
            };
            lines.push(StyledLine::new(vec![pad, caption]));
        }
    }
}

/// Loads and decodes the picture `target` names; PNG is the format koi
/// decodes (the kitty protocol's), other formats show their path.
fn decode(target: &str, dir: &Path) -> Option<Arc<PicturePixels>> {
    let image = pictures::load(target, dir).ok()?;
    if image.format != ImageFormat::Png {
        return None;
    }
    match koi_terminal::graphics::decode_png(&image.bytes()?) {
        Ok(pixels) => Some(Arc::new(pixels)),
        Err(e) => {
            log::debug!("overlay: {target} is not a picture koi can draw: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(path: &Path, w: u32, h: u32) {
        let file = std::fs::File::create(path).unwrap();
        let mut enc = png::Encoder::new(file, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().unwrap();
        writer
            .write_image_data(&vec![200; (w * h * 4) as usize])
            .unwrap();
    }

    #[test]
    fn pictures_fit_the_width_and_are_decoded_once() {
        let dir = tempfile::tempdir().unwrap();
        png(&dir.path().join("wide.png"), 400, 100);
        std::fs::write(dir.path().join("bad.png"), b"\x89PNG\r\n\x1a\nnot really").unwrap();
        let mut pics = AnswerPictures::default();
        assert!(pics.set_context(dir.path(), (10, 20)));
        assert!(!pics.set_context(dir.path(), (10, 20)));
        let pal = Palette::from_theme(&render::Theme::default());
        let (mut lines, mut laid) = (Vec::new(), Vec::new());
        let answer = "![a](wide.png) ![b](bad.png) ![c](gone.png)";
        pics.lay_out(answer, 22, 2, &pal, &mut lines, &mut laid);
        // 20 columns of 10 px: half of 400 px, so 50 px high: 3 rows.
        assert_eq!(laid.len(), 1);
        assert_eq!(
            (laid[0].line, laid[0].col, laid[0].cols, laid[0].rows),
            (1, 2, 20, 3)
        );
        assert_eq!(lines.len(), 5, "a gap, three rows, the caption");
        let caption: String = lines[4].spans.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(caption, "  wide.png");
        let id = laid[0].pixels.id();
        let (mut again, mut laid_again) = (Vec::new(), Vec::new());
        pics.lay_out(answer, 22, 2, &pal, &mut again, &mut laid_again);
        assert_eq!(laid_again[0].pixels.id(), id, "decoded once");
    }
}
