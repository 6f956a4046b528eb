//! The renderer: per-row glyph batches re-prepared only when their row
//! changed, plus one instanced draw of rectangles under and over the text.

mod glyphs;
mod grid;
mod layers;
mod pictures;

use glyphon::TextRenderer;

use crate::error::RenderError;
use crate::font::{CellMetrics, FontConfig, Fonts};
use crate::frame::{Cell, Frame};
use crate::line::LineContent;
use crate::overlay::OverlayLayer;
use crate::rects::{is_supported_format, RectInstance, RectPipeline};
use crate::shaping::{ShapeCache, MAX_SHAPED};
use crate::theme::Theme;

/// Texture format for offscreen rendering: 8-bit RGBA without the sRGB
/// encoding step, so text blends in sRGB space as in most terminals and
/// colours come out exactly as given.
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// Damage-only frames after which one frame is rebuilt in full. Partial
/// frames cannot let glyphon evict glyphs (rows not re-prepared still use
/// them), so the atlas only grows between full frames; a periodic full
/// frame (a few ms) lets it drop glyphs that scrolled away.
const FULL_REBUILD_INTERVAL: u32 = 1024;

/// What the last `prepare` did, for tests and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrepareStats {
    /// Grid rows that were rebuilt and re-uploaded.
    pub rows_prepared: usize,
    /// Grid rows on screen.
    pub rows_visible: usize,
    /// Overlay layers rebuilt.
    pub overlays_prepared: usize,
    /// Whether everything was rebuilt (first frame, resize, font or theme
    /// change, atlas eviction).
    pub full: bool,
    /// Pixel rows `y0..y1` that differ from the previous frame (empty when
    /// `y0 == y1`); `None` when the whole target must be redrawn.
    pub changed_px_rows: Option<(u32, u32)>,
}

/// One grid row: its glyph batch and the cells it was built from.
struct RowState {
    text: TextRenderer,
    content: LineContent,
    cells: Vec<Cell>,
    selection: Vec<(usize, usize)>,
    block_cursor: Option<(usize, usize)>,
    /// Columns under a cursor, shaped alone (empty with ligatures off).
    unjoined: Vec<usize>,
    valid: bool,
}

/// One overlay layer: its rectangles and glyph batch.
struct OverlayState {
    text: TextRenderer,
    lines: Vec<LineContent>,
    rects: Vec<RectInstance>,
    pictures: Vec<crate::overlay_draw::PlacedPicture>,
}

/// Draws [`Frame`]s. Holds the font system, glyph atlas and per-row GPU
/// batches; create one per target format.
pub struct Renderer {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) format: wgpu::TextureFormat,
    srgb: bool,
    fonts: Fonts,
    glyphs: glyphs::Glyphs,
    shapes: ShapeCache,
    empty: glyphon::Buffer,
    rects: RectPipeline,
    pictures: pictures::PicturePipeline,
    /// The picture tiles of the last prepared frame.
    last_pictures: Vec<crate::picture::PictureTile>,
    rows: Vec<RowState>,
    overlays: Vec<OverlayState>,
    last_overlays: Vec<OverlayLayer>,
    theme: Theme,
    /// The default background's opacity (`window.opacity`): 1 for an
    /// opaque window.
    background_alpha: f32,
    padding: u32,
    size: (u32, u32),
    /// Grid columns on screen in the last prepared frame.
    visible_cols: usize,
    /// Partial frames since the last full one.
    partial_frames: u32,
    invalid: bool,
    under_rects: u32,
    cursor_rects: u32,
    /// Whether row or overlay rectangles changed since the last upload.
    rects_dirty: bool,
    last_cursor_rects: Vec<RectInstance>,
    rect_scratch: Vec<RectInstance>,
    stats: PrepareStats,
    /// Step times of the last frame drawn into a window surface.
    pub(crate) timings: crate::target::FrameTimings,
    pub(crate) offscreen: Option<crate::offscreen::Offscreen>,
    /// Rows of pixels that differ from the previously prepared frame.
    pub(crate) damage: PixelDamage,
    /// Count of successful `prepare` calls, so a target knows whether it
    /// holds the frame just before the current one.
    pub(crate) serial: u64,
}

/// Which pixel rows a prepared frame changed relative to the one before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PixelDamage {
    /// Everything (or unknown).
    Full,
    /// Rows `y0..y1` (empty when `y0 == y1`).
    Rows(u32, u32),
}

impl PixelDamage {
    pub(super) fn add(&mut self, y0: u32, y1: u32) {
        if let PixelDamage::Rows(a, b) = self {
            if y0 >= y1 {
                return;
            }
            if a == b {
                (*a, *b) = (y0, y1);
            } else {
                (*a, *b) = ((*a).min(y0), (*b).max(y1));
            }
        }
    }
}

impl Renderer {
    /// A renderer drawing into textures of `format` (an 8-bit RGBA or BGRA
    /// format, sRGB or not: colours come out exact either way).
    pub fn new(
        gpu: &crate::Gpu,
        font: FontConfig,
        theme: Theme,
        format: wgpu::TextureFormat,
    ) -> Result<Self, RenderError> {
        Self::with_fonts(gpu, Fonts::new(&font), theme, format)
    }

    /// [`Renderer::new`] with fonts loaded beforehand (on another thread
    /// while the GPU started, say).
    pub fn with_fonts(
        gpu: &crate::Gpu,
        mut fonts: Fonts,
        theme: Theme,
        format: wgpu::TextureFormat,
    ) -> Result<Self, RenderError> {
        if !is_supported_format(format) {
            return Err(RenderError::UnsupportedFormat(format));
        }
        let device = gpu.device.clone();
        let queue = gpu.queue.clone();
        let srgb = format.is_srgb();
        let glyphs = glyphs::Glyphs::new(&device, &queue, format);
        let empty = glyphon::Buffer::new(&mut fonts.system, glyphon::Metrics::new(1.0, 1.0));
        let rects = RectPipeline::new(&device, format);
        let pictures = pictures::PicturePipeline::new(&device, format);
        Ok(Self {
            device,
            queue,
            format,
            srgb,
            fonts,
            glyphs,
            shapes: ShapeCache::default(),
            empty,
            rects,
            pictures,
            last_pictures: Vec::new(),
            rows: Vec::new(),
            overlays: Vec::new(),
            last_overlays: Vec::new(),
            theme,
            background_alpha: 1.0,
            padding: 0,
            size: (0, 0),
            visible_cols: 0,
            partial_frames: 0,
            invalid: true,
            under_rects: 0,
            cursor_rects: 0,
            rects_dirty: true,
            last_cursor_rects: Vec::new(),
            rect_scratch: Vec::new(),
            stats: PrepareStats::default(),
            timings: crate::target::FrameTimings::starting_now(),
            offscreen: None,
            damage: PixelDamage::Full,
            serial: 0,
        })
    }

    /// The texture format this renderer draws into.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Cell width and height in physical pixels.
    pub fn cell_size(&self) -> (u32, u32) {
        self.fonts.cell_size()
    }

    /// The font settings in use.
    pub fn font_config(&self) -> &FontConfig {
        self.fonts.config()
    }

    /// Full cell metrics (baseline, underline and strikeout positions).
    pub fn cell_metrics(&self) -> CellMetrics {
        self.fonts.metrics
    }

    /// The font family actually in use (the fallback if the configured one
    /// is missing).
    pub fn font_family(&self) -> &str {
        &self.fonts.family
    }

    /// Changes font family, size or scale factor (zoom, moving to another
    /// monitor). Returns the new cell size; the next frame is redrawn in full.
    pub fn set_font(&mut self, font: &FontConfig) -> (u32, u32) {
        self.fonts.configure(font);
        self.shapes.clear();
        // Custom glyphs are keyed by size only; a new atlas drops stale
        // decorations drawn for the old metrics.
        self.glyphs.reset_atlas();
        self.invalid = true;
        self.cell_size()
    }

    /// The current theme.
    pub fn theme(&self) -> &Theme {
        &self.theme
    }

    /// Replaces the theme; the next frame is redrawn in full.
    pub fn set_theme(&mut self, theme: Theme) {
        if theme != self.theme {
            self.theme = theme;
            self.invalid = true;
        }
    }

    /// The opacity of the default background (the padding and every cell
    /// in the theme's background), 0 to 1, for a window whose pixels the
    /// window system blends over what is behind it. Text, cursors and
    /// cells with colours of their own stay opaque. The next frame is
    /// redrawn in full.
    pub fn set_background_opacity(&mut self, opacity: f32) {
        let alpha = if opacity.is_nan() {
            1.0
        } else {
            opacity.clamp(0.0, 1.0)
        };
        if alpha != self.background_alpha {
            self.background_alpha = alpha;
            self.invalid = true;
        }
    }

    /// Padding in physical pixels between the target's edges and the grid,
    /// painted in the default background.
    pub fn set_padding(&mut self, padding_px: u32) {
        if padding_px != self.padding {
            self.padding = padding_px;
            self.invalid = true;
        }
    }

    /// The padding in physical pixels.
    pub fn padding(&self) -> u32 {
        self.padding
    }

    /// How many whole cells fit in `width × height` pixels inside the
    /// current padding (at least 1×1).
    pub fn grid_size_for(&self, width_px: u32, height_px: u32) -> (usize, usize) {
        let (cw, ch) = self.cell_size();
        let inner = |len: u32| len.saturating_sub(2 * self.padding.min(len / 2));
        let cols = (inner(width_px) / cw.max(1)).max(1);
        let rows = (inner(height_px) / ch.max(1)).max(1);
        (cols as usize, rows as usize)
    }

    /// The target size in pixels that holds exactly `cols × rows` cells
    /// plus the padding (for offscreen screenshots of a known grid).
    pub fn size_for_grid(&self, cols: usize, rows: usize) -> (u32, u32) {
        let (cw, ch) = self.cell_size();
        let side = |n: usize, cell: u32| {
            let cells = u32::try_from(n).unwrap_or(u32::MAX).saturating_mul(cell);
            cells.saturating_add(self.padding.saturating_mul(2)).max(1)
        };
        (side(cols, cw), side(rows, ch))
    }

    /// Pictures uploaded to the GPU so far and the bytes their textures
    /// hold now: each picture is uploaded once, not once per frame.
    pub fn picture_uploads(&self) -> (u64, usize) {
        (self.pictures.uploads, self.pictures.texture_bytes())
    }

    /// Statistics of the last `prepare`.
    pub fn last_stats(&self) -> PrepareStats {
        self.stats
    }

    /// Does the CPU work of a frame for a `width × height` target: finds the
    /// changed rows, shapes and rebuilds only those, and uploads. Follow with
    /// [`Renderer::draw`] in a render pass (the `render_to_*` methods do both).
    pub fn prepare(
        &mut self,
        frame: &Frame,
        width: u32,
        height: u32,
    ) -> Result<PrepareStats, RenderError> {
        let max = self.device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(RenderError::InvalidSize { width, height, max });
        }
        if self.size != (width, height) {
            self.size = (width, height);
            self.glyphs.resize(width, height);
            self.invalid = true;
        }
        if self.shapes.len() > MAX_SHAPED {
            self.shapes.clear();
            self.invalid = true;
        }
        let result = match self.prepare_text(frame) {
            Err(RenderError::AtlasFull) => {
                // Evict everything not on screen and rebuild the frame once.
                log::debug!("render: glyph atlas full; rebuilding the frame");
                self.invalid = true;
                self.prepare_text(frame)
            }
            other => other,
        };
        if result.is_err() {
            // Some rows may hold half-built state: rebuild all next time.
            self.invalid = true;
            self.rects_dirty = true;
            self.damage = PixelDamage::Full;
        }
        result?;
        self.upload_rects(frame);
        if frame.pictures != self.last_pictures {
            self.damage = PixelDamage::Full;
            self.last_pictures.clone_from(&frame.pictures);
        }
        let cell = self.cell_size();
        let overlays: Vec<&[crate::overlay_draw::PlacedPicture]> = self
            .overlays
            .iter()
            .map(|o| o.pictures.as_slice())
            .collect();
        self.pictures.prepare(
            &self.device,
            &self.queue,
            pictures::Placed {
                frame,
                overlays: &overlays,
            },
            self.size,
            self.padding,
            cell,
        );
        self.stats.changed_px_rows = match self.damage {
            PixelDamage::Full => None,
            PixelDamage::Rows(y0, y1) => Some((y0, y1)),
        };
        self.serial += 1;
        Ok(self.stats)
    }
}
