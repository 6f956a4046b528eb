//! Overlays, rectangles and the draw order of a frame.

use super::{OverlayState, Renderer};
use crate::color::RgbGpu;
use crate::error::RenderError;
use crate::frame::{CursorSpec, Frame};
use crate::picture::PictureLayer;
use crate::rects::RectInstance;

impl Renderer {
    /// Lays out the frame's overlays when they differ from the last
    /// frame's (or on a full redraw): how many there are now, or `None`
    /// when nothing changed. Zero means the last ones went away, which
    /// damages the pixels they covered.
    pub(super) fn prepare_overlays(
        &mut self,
        frame: &Frame,
        full: bool,
    ) -> Result<Option<usize>, RenderError> {
        if !full && frame.overlays == self.last_overlays {
            return Ok(None);
        }
        self.overlays.truncate(frame.overlays.len());
        while self.overlays.len() < frame.overlays.len() {
            self.overlays.push(OverlayState {
                text: self.glyphs.new_batch(),
                lines: Vec::new(),
                rects: Vec::new(),
                pictures: Vec::new(),
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
            let built = crate::overlay_draw::Built {
                lines: &mut state.lines,
                rects: &mut state.rects,
                pictures: &mut state.pictures,
            };
            crate::overlay_draw::build(layer, &ctx, built, &mut self.fonts, &mut self.shapes);
            let (shapes, empty) = (&self.shapes, &self.empty);
            let areas = state
                .lines
                .iter()
                .flat_map(|line| line.text_areas(shapes, empty));
            self.glyphs
                .prepare(&mut state.text, &mut self.fonts.system, metrics, areas)?;
        }
        self.last_overlays.clone_from(&frame.overlays);
        Ok(Some(frame.overlays.len()))
    }

    /// Collects rectangles: row backgrounds under the text, then the cursor
    /// and the overlay boxes over it.
    pub(super) fn upload_rects(&mut self, frame: &Frame) {
        let mut cursor = Vec::new();
        let grid = crate::cursor::GridGeometry {
            padding: self.padding,
            metrics: self.fonts.metrics,
            cols: self.visible_cols,
            rows: self.rows.len(),
        };
        let color = self.theme.cursor;
        let inactive = frame.inactive_cursors.iter().map(|spec| CursorSpec {
            focused: false,
            ..*spec
        });
        for spec in frame.cursor.into_iter().chain(inactive) {
            crate::cursor::overlay_rects(&mut cursor, frame, spec, &grid, color, self.srgb);
        }
        // Beam, underline and hollow cursors change no row: their old and
        // new places are the damage.
        if cursor != self.last_cursor_rects {
            let h = self.size.1;
            for rect in self.last_cursor_rects.iter().chain(&cursor) {
                let y0 = rect.origin[1].max(0.0) as u32;
                let y1 = (rect.origin[1] + rect.extent[1]).ceil().max(0.0) as u32;
                self.damage.add(y0.min(h), y1.min(h));
            }
        }
        // A frame whose rows, overlays and cursor all stayed put keeps the
        // rectangles already on the GPU.
        if !self.rects_dirty && cursor == self.last_cursor_rects {
            return;
        }
        let mut all = std::mem::take(&mut self.rect_scratch);
        all.clear();
        // Instance 0 paints the whole target in the background, for
        // partial redraws that keep the old frame outside a scissor.
        let (w, h) = self.size;
        let bg = self.theme.background;
        all.push(RectInstance::translucent(
            0.0,
            0.0,
            w as f32,
            h as f32,
            bg,
            self.srgb,
            self.background_alpha,
        ));
        for row in &self.rows {
            all.extend_from_slice(&row.content.backgrounds);
        }
        self.under_rects = all.len() as u32 - 1;
        all.extend_from_slice(&cursor);
        self.cursor_rects = cursor.len() as u32;
        for overlay in &self.overlays {
            all.extend_from_slice(&overlay.rects);
        }
        self.rects
            .upload(&self.device, &self.queue, self.size, &all);
        self.rect_scratch = all;
        self.last_cursor_rects = cursor;
        self.rects_dirty = false;
    }

    /// Records the prepared frame into `pass` (whose target must have the
    /// size given to `prepare` and this renderer's format).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.draw_band(pass, 0, u32::MAX);
    }

    /// [`Renderer::draw`] for a pass scissored to pixel rows `y0..y1`: grid
    /// rows outside the band are not recorded at all (every row's glyphs
    /// stay inside the row), so a one-row echo costs one row's draw.
    pub(crate) fn draw_band(&self, pass: &mut wgpu::RenderPass<'_>, y0: u32, y1: u32) {
        let under_end = 1 + self.under_rects;
        self.pictures.draw(pass, PictureLayer::UnderBackgrounds);
        self.rects.draw(pass, 1..under_end);
        self.pictures.draw(pass, PictureLayer::UnderText);
        let cell = self.fonts.metrics.height.max(1);
        for (r, row) in self.rows.iter().enumerate() {
            let top = self.padding.saturating_add(cell.saturating_mul(r as u32));
            if top >= y1 || top.saturating_add(cell) <= y0 {
                continue;
            }
            if let Err(e) = self.glyphs.render(&row.text, pass) {
                log::warn!("render: drawing a row failed: {e}");
            }
        }
        self.pictures.draw(pass, PictureLayer::OverText);
        let mut next = under_end + self.cursor_rects;
        self.rects.draw(pass, under_end..next);
        for (i, overlay) in self.overlays.iter().enumerate() {
            let end = next + overlay.rects.len() as u32;
            self.rects.draw(pass, next..end);
            next = end;
            if let Err(e) = self.glyphs.render(&overlay.text, pass) {
                log::warn!("render: drawing an overlay failed: {e}");
            }
            self.pictures.draw(pass, PictureLayer::Overlay(i));
        }
    }

    /// Paints the whole target (within the pass's scissor) in the
    /// background colour.
    pub(crate) fn clear_rows(&self, pass: &mut wgpu::RenderPass<'_>) {
        self.rects.draw(pass, 0..1);
    }

    /// The size of the target the last frame was prepared for.
    pub(crate) fn target_size(&self) -> (u32, u32) {
        self.size
    }

    /// The colour the target is cleared to (the theme background).
    pub(crate) fn clear_color(&self) -> wgpu::Color {
        let [r, g, b, a] = self
            .theme
            .background
            .to_target_premultiplied(self.srgb, self.background_alpha);
        wgpu::Color {
            r: f64::from(r),
            g: f64::from(g),
            b: f64::from(b),
            a: f64::from(a),
        }
    }
}
