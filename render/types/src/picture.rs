//! Pictures on the grid (kitty graphics, sixel, iTerm2 inline images) as
//! the renderer receives them: decoded pixels shared by reference, and one
//! tile per grid cell that shows part of a picture.
//!
//! A picture is cut into cell-sized tiles because the terminal anchors it
//! to cells: a tile scrolls, is erased and is reflowed with its cell, so a
//! picture half erased by `ED` shows exactly its remaining half.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Pictures with a z-index below this are drawn under cell backgrounds,
/// as kitty draws them (its spec: below `-1_073_741_824`, half of `i32::MIN`).
pub const BELOW_BACKGROUND_Z: i32 = i32::MIN / 2;

/// The decoded pixels of one picture: 8-bit RGBA, sRGB-encoded, row-major,
/// top row first, not premultiplied.
#[derive(Debug)]
pub struct PicturePixels {
    id: u64,
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

/// Process-wide counter so every decoded picture has its own texture key.
static NEXT_PICTURE: AtomicU64 = AtomicU64::new(1);

impl PicturePixels {
    /// Wraps `rgba` (`width * height * 4` bytes); `None` when the length
    /// does not match or a side is zero.
    pub fn new(width: u32, height: u32, rgba: Vec<u8>) -> Option<Self> {
        let expected = (width as usize)
            .checked_mul(height as usize)?
            .checked_mul(4)?;
        if width == 0 || height == 0 || rgba.len() != expected {
            return None;
        }
        Some(Self {
            id: NEXT_PICTURE.fetch_add(1, Ordering::Relaxed),
            width,
            height,
            rgba,
        })
    }

    /// A key unique to these pixels in this process: the renderer uploads
    /// a texture once per key.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The pixels, `width * height * 4` bytes.
    pub fn rgba(&self) -> &[u8] {
        &self.rgba
    }

    /// Bytes held, for memory budgets.
    pub fn byte_size(&self) -> usize {
        self.rgba.len()
    }
}

impl PartialEq for PicturePixels {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

// Pixels are known by their id, which no two decodes share.
impl Eq for PicturePixels {}

impl std::hash::Hash for PicturePixels {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

/// A rectangle as fractions: `[x0, y0, x1, y1]`.
pub type FracRect = [f32; 4];

/// The part of a picture one grid cell shows.
#[derive(Debug, Clone, PartialEq)]
pub struct PictureTile {
    /// The picture.
    pub pixels: Arc<PicturePixels>,
    /// The cell, in grid columns and rows of the frame.
    pub col: usize,
    /// The cell's row.
    pub row: usize,
    /// Where in the cell the tile is drawn, in cell units (0..1 covers the
    /// whole cell), so the tile follows the cell size.
    pub dest: FracRect,
    /// Which part of the picture it shows, as fractions of its size.
    pub source: FracRect,
    /// Stacking order: negative draws under text (and under cell
    /// backgrounds below [`BELOW_BACKGROUND_Z`]), the rest over it.
    pub z: i32,
}

/// Where a tile is drawn relative to the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PictureLayer {
    /// Under cell backgrounds.
    UnderBackgrounds,
    /// Over cell backgrounds, under text.
    UnderText,
    /// Over text.
    OverText,
    /// Inside overlay layer `n` (over its box and text).
    Overlay(usize),
}

impl PictureTile {
    /// The layer this tile's z-index puts it in.
    pub fn layer(&self) -> PictureLayer {
        if self.z < BELOW_BACKGROUND_Z {
            PictureLayer::UnderBackgrounds
        } else if self.z < 0 {
            PictureLayer::UnderText
        } else {
            PictureLayer::OverText
        }
    }
}
