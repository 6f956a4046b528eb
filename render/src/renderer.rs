//! The renderer: per-row glyph batches re-prepared only when their row
//! changed, plus one instanced draw of rectangles under and over the text.

use glyphon::{Cache, ColorMode, Resolution, SwashCache, TextAtlas, TextRenderer, Viewport};

use crate::error::RenderError;
use crate::font::{CellMetrics, FontConfig, Fonts};
use crate::cursor::block_cursor;
use crate::frame::{Cell, Damage, Frame};
use crate::line::{build_line, LineContent, LineLayout};
use crate::overlay::OverlayLayer;
use crate::procedural;
use crate::rects::{is_supported_format, RectInstance, RectPipeline};
use crate::shaping::{ShapeCache, MAX_SHAPED};
use crate::theme::Theme;

/// Texture format for offscreen rendering: 8-bit RGBA without the sRGB
/// encoding step, so text blends in sRGB space as in most terminals and
/// colours come out exactly as given.
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

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
}

/// One grid row: its glyph batch and the cells it was built from.
struct RowState {
    text: TextRenderer,
    content: LineContent,
    cells: Vec<Cell>,
    selection: Vec<(usize, usize)>,
    block_cursor: Option<(usize, usize)>,
    valid: bool,
}

/// One overlay layer: its rectangles and glyph batch.
struct OverlayState {
    text: TextRenderer,
    lines: Vec<LineContent>,
    rects: Vec<RectInstance>,
}

/// Draws [`Frame`]s. Holds the font system, glyph atlas and per-row GPU
/// batches; create one per target format.
pub struct Renderer {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) format: wgpu::TextureFormat,
    srgb: bool,
    fonts: Fonts,
    swash: SwashCache,
    glyph_cache: Cache,
    atlas: TextAtlas,
    viewport: Viewport,
    shapes: ShapeCache,
    empty: glyphon::Buffer,
    rects: RectPipeline,
    rows: Vec<RowState>,
    overlays: Vec<OverlayState>,
    last_overlays: Vec<OverlayLayer>,
    theme: Theme,
    padding: u32,
    size: (u32, u32),
    /// Grid columns on screen in the last prepared frame.
    visible_cols: usize,
    invalid: bool,
    under_rects: u32,
    cursor_rects: u32,
    stats: PrepareStats,
    pub(crate) offscreen: Option<crate::output::Offscreen>,
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
        if !is_supported_format(format) {
            return Err(RenderError::UnsupportedFormat(format));
        }
        let device = gpu.device.clone();
        let queue = gpu.queue.clone();
        let srgb = format.is_srgb();
        let mut fonts = Fonts::new(&font);
        let glyph_cache = Cache::new(&device);
        let atlas = new_atlas(&device, &queue, &glyph_cache, format);
        let viewport = Viewport::new(&device, &glyph_cache);
        let empty = glyphon::Buffer::new(&mut fonts.system, glyphon::Metrics::new(1.0, 1.0));
        let rects = RectPipeline::new(&device, format);
        Ok(Self {
            device,
            queue,
            format,
            srgb,
            fonts,
            swash: SwashCache::new(),
            glyph_cache,
            atlas,
            viewport,
            shapes: ShapeCache::default(),
            empty,
            rects,
            rows: Vec::new(),
            overlays: Vec::new(),
            last_overlays: Vec::new(),
            theme,
            padding: 0,
            size: (0, 0),
            visible_cols: 0,
            invalid: true,
            under_rects: 0,
            cursor_rects: 0,
            stats: PrepareStats::default(),
            offscreen: None,
        })
    }

    /// The texture format this renderer draws into.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Cell width and height in physical pixels.
    pub fn cell_size(&self) -> (u32, u32) {
        (self.fonts.metrics.width, self.fonts.metrics.height)
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
        self.atlas = new_atlas(&self.device, &self.queue, &self.glyph_cache, self.format);
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
            self.viewport
                .update(&self.queue, Resolution { width, height });
            self.invalid = true;
        }
        if self.shapes.len() > MAX_SHAPED {
            self.shapes.clear();
            self.invalid = true;
        }
        match self.prepare_text(frame) {
            Err(RenderError::AtlasFull) => {
                // Evict everything not on screen and rebuild the frame once.
                log::debug!("render: glyph atlas full; rebuilding the frame");
                self.invalid = true;
                self.prepare_text(frame)?;
            }
            other => other?,
        }
        self.upload_rects(frame);
        Ok(self.stats)
    }

    fn prepare_text(&mut self, frame: &Frame) -> Result<(), RenderError> {
        let full = self.invalid;
        if full {
            // Nothing prepared so far stays on screen, so every glyph may
            // be evicted. Partial frames never trim: glyphs of rows that
            // are not re-prepared must stay in the atlas.
            self.atlas.trim();
        }
        let m = self.fonts.metrics;
        let pad = self.padding as i32;
        let (w, h) = self.size;
        let visible = |len: u32, cell: u32| (len.saturating_sub(self.padding)).div_ceil(cell.max(1));
        let cols = frame.cols.min(visible(w, m.width) as usize);
        let rows = frame.rows.min(visible(h, m.height) as usize);
        self.visible_cols = cols;
        self.resize_rows(rows);

        let mut selection: Vec<Vec<(usize, usize)>> = vec![Vec::new(); rows];
        for span in &frame.selection {
            if let Some(list) = selection.get_mut(span.row) {
                list.push((span.start_col, span.end_col.min(cols)));
            }
        }
        let block = block_cursor(frame);
        let damaged: Option<Vec<bool>> = match &frame.damage {
            Damage::Full => None,
            Damage::Rows(list) => {
                let mut marks = vec![false; rows];
                for &r in list {
                    if let Some(mark) = marks.get_mut(r) {
                        *mark = true;
                    }
                }
                Some(marks)
            }
        };

        let mut prepared = 0;
        for (r, row) in self.rows.iter_mut().enumerate() {
            let cells = frame.row_cells(r);
            let cells = &cells[..cells.len().min(cols)];
            let row_block = block.filter(|b| b.0 == r).map(|b| (b.1, b.2));
            let may_differ = damaged.as_ref().is_none_or(|d| d[r]);
            let same = row.valid
                && !full
                && row.selection == selection[r]
                && row.block_cursor == row_block
                && (!may_differ || row.cells.as_slice() == cells);
            if same {
                continue;
            }
            row.valid = false;
            row.cells.clear();
            row.cells.extend_from_slice(cells);
            row.selection = std::mem::take(&mut selection[r]);
            row.block_cursor = row_block;
            let y = pad + r as i32 * m.height as i32;
            let layout = LineLayout {
                x: pad,
                y,
                clip: (0, 0, w as i32, h as i32),
                selection: &row.selection,
                block_cursor: row.block_cursor,
                skip_default_bg: true,
            };
            build_line(
                &mut row.content,
                &row.cells,
                &layout,
                &self.theme,
                self.srgb,
                &mut self.fonts,
                &mut self.shapes,
            );
            let metrics = m;
            row.text
                .prepare_with_custom(
                    &self.device,
                    &self.queue,
                    &mut self.fonts.system,
                    &mut self.atlas,
                    &self.viewport,
                    row.content.text_areas(&self.shapes, &self.empty),
                    &mut self.swash,
                    |req| rasterize(req, &metrics),
                )
                .map_err(|_| RenderError::AtlasFull)?;
            row.valid = true;
            prepared += 1;
        }

        let overlays_prepared = self.prepare_overlays(frame, full)?;
        self.invalid = false;
        self.stats = PrepareStats {
            rows_prepared: prepared,
            rows_visible: rows,
            overlays_prepared,
            full,
        };
        Ok(())
    }

    fn resize_rows(&mut self, rows: usize) {
        self.rows.truncate(rows);
        while self.rows.len() < rows {
            let text = TextRenderer::new(
                &mut self.atlas,
                &self.device,
                wgpu::MultisampleState::default(),
                None,
            );
            self.rows.push(RowState {
                text,
                content: LineContent::default(),
                cells: Vec::new(),
                selection: Vec::new(),
                block_cursor: None,
                valid: false,
            });
        }
    }

    fn prepare_overlays(&mut self, frame: &Frame, full: bool) -> Result<usize, RenderError> {
        if !full && frame.overlays == self.last_overlays {
            return Ok(0);
        }
        self.overlays.truncate(frame.overlays.len());
        while self.overlays.len() < frame.overlays.len() {
            let text = TextRenderer::new(
                &mut self.atlas,
                &self.device,
                wgpu::MultisampleState::default(),
                None,
            );
            self.overlays.push(OverlayState {
                text,
                lines: Vec::new(),
                rects: Vec::new(),
            });
        }
        let ctx = crate::overlay_draw::OverlayCtx {
            size: self.size,
            padding: self.padding,
            theme: &self.theme,
            srgb: self.srgb,
        };
        let metrics = self.fonts.metrics;
        for (layer, state) in frame.overlays.iter().zip(self.overlays.iter_mut()) {
            crate::overlay_draw::build(
                layer,
                &ctx,
                &mut state.lines,
                &mut state.rects,
                &mut self.fonts,
                &mut self.shapes,
            );
            let (shapes, empty) = (&self.shapes, &self.empty);
            let areas = state
                .lines
                .iter()
                .flat_map(|line| line.text_areas(shapes, empty));
            state
                .text
                .prepare_with_custom(
                    &self.device,
                    &self.queue,
                    &mut self.fonts.system,
                    &mut self.atlas,
                    &self.viewport,
                    areas,
                    &mut self.swash,
                    |req| rasterize(req, &metrics),
                )
                .map_err(|_| RenderError::AtlasFull)?;
        }
        self.last_overlays.clone_from(&frame.overlays);
        Ok(frame.overlays.len())
    }

    /// Collects rectangles: row backgrounds under the text, then the cursor
    /// and the overlay boxes over it.
    fn upload_rects(&mut self, frame: &Frame) {
        let mut all: Vec<RectInstance> = Vec::new();
        for row in &self.rows {
            all.extend_from_slice(&row.content.backgrounds);
        }
        self.under_rects = all.len() as u32;
        if let Some(cursor) = frame.cursor {
            let grid = crate::cursor::GridGeometry {
                padding: self.padding,
                metrics: self.fonts.metrics,
                cols: self.visible_cols,
                rows: self.rows.len(),
            };
            let color = self.theme.cursor;
            crate::cursor::overlay_rects(&mut all, frame, cursor, &grid, color, self.srgb);
        }
        self.cursor_rects = all.len() as u32 - self.under_rects;
        for overlay in &self.overlays {
            all.extend_from_slice(&overlay.rects);
        }
        self.rects
            .upload(&self.device, &self.queue, self.size, &all);
    }

    /// Records the prepared frame into `pass` (whose target must have the
    /// size given to `prepare` and this renderer's format).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.rects.draw(pass, 0..self.under_rects);
        for row in &self.rows {
            if let Err(e) = row.text.render(&self.atlas, &self.viewport, pass) {
                log::warn!("render: drawing a row failed: {e}");
            }
        }
        let mut next = self.under_rects + self.cursor_rects;
        self.rects.draw(pass, self.under_rects..next);
        for overlay in &self.overlays {
            let end = next + overlay.rects.len() as u32;
            self.rects.draw(pass, next..end);
            next = end;
            if let Err(e) = overlay.text.render(&self.atlas, &self.viewport, pass) {
                log::warn!("render: drawing an overlay failed: {e}");
            }
        }
    }

    /// The colour the target is cleared to (the theme background).
    pub(crate) fn clear_color(&self) -> wgpu::Color {
        let [r, g, b, a] = self.theme.background.to_target(self.srgb, 1.0);
        wgpu::Color {
            r: f64::from(r),
            g: f64::from(g),
            b: f64::from(b),
            a: f64::from(a),
        }
    }
}

fn new_atlas(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    cache: &Cache,
    format: wgpu::TextureFormat,
) -> TextAtlas {
    // Accurate mode linearises text colours for sRGB targets; web mode
    // passes sRGB values straight through to non-sRGB targets.
    let mode = if format.is_srgb() {
        ColorMode::Accurate
    } else {
        ColorMode::Web
    };
    TextAtlas::with_color_mode(device, queue, cache, format, mode)
}

fn rasterize(
    req: glyphon::RasterizeCustomGlyphRequest,
    metrics: &CellMetrics,
) -> Option<glyphon::RasterizedCustomGlyph> {
    let data = procedural::rasterize(req.id, req.width, req.height, metrics)?;
    Some(glyphon::RasterizedCustomGlyph {
        data,
        content_type: glyphon::ContentType::Mask,
    })
}
