//! The glyph atlas and the glyph batches that draw from it: one place that
//! creates a batch and uploads text into it, for grid rows and overlay
//! layers alike.

use glyphon::{
    Cache, ColorMode, FontSystem, Resolution, SwashCache, TextArea, TextAtlas, TextRenderer,
    Viewport,
};

use crate::error::RenderError;
use crate::font::CellMetrics;
use crate::procedural;

/// The atlas, its viewport and the rasterizer cache every batch shares.
pub(super) struct Glyphs {
    device: wgpu::Device,
    queue: wgpu::Queue,
    format: wgpu::TextureFormat,
    cache: Cache,
    swash: SwashCache,
    atlas: TextAtlas,
    viewport: Viewport,
}

impl Glyphs {
    /// An empty atlas for targets of `format`.
    pub(super) fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
    ) -> Self {
        let cache = Cache::new(device);
        let atlas = new_atlas(device, queue, &cache, format);
        let viewport = Viewport::new(device, &cache);
        Glyphs {
            device: device.clone(),
            queue: queue.clone(),
            format,
            cache,
            swash: SwashCache::new(),
            atlas,
            viewport,
        }
    }

    /// Drops every glyph, custom ones included (after a font change).
    pub(super) fn reset_atlas(&mut self) {
        self.atlas = new_atlas(&self.device, &self.queue, &self.cache, self.format);
    }

    /// Lets the atlas evict glyphs no batch prepared since the last trim.
    pub(super) fn trim(&mut self) {
        self.atlas.trim();
    }

    /// Tells the viewport the target's size.
    pub(super) fn resize(&mut self, width: u32, height: u32) {
        self.viewport
            .update(&self.queue, Resolution { width, height });
    }

    /// A new, empty glyph batch.
    pub(super) fn new_batch(&mut self) -> TextRenderer {
        TextRenderer::new(
            &mut self.atlas,
            &self.device,
            wgpu::MultisampleState::default(),
            None,
        )
    }

    /// Replaces `batch`'s glyphs with `areas`; box-drawing and block
    /// glyphs are drawn procedurally for the cell `metrics`.
    pub(super) fn prepare<'a>(
        &mut self,
        batch: &mut TextRenderer,
        fonts: &mut FontSystem,
        metrics: CellMetrics,
        areas: impl IntoIterator<Item = TextArea<'a>>,
    ) -> Result<(), RenderError> {
        batch
            .prepare_with_custom(
                &self.device,
                &self.queue,
                fonts,
                &mut self.atlas,
                &self.viewport,
                areas,
                &mut self.swash,
                |req| rasterize(req, &metrics),
            )
            .map_err(|_| RenderError::AtlasFull)
    }

    /// Records `batch` into `pass`.
    pub(super) fn render(
        &self,
        batch: &TextRenderer,
        pass: &mut wgpu::RenderPass<'_>,
    ) -> Result<(), glyphon::RenderError> {
        batch.render(&self.atlas, &self.viewport, pass)
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
