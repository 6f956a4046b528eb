//! `--screenshot`: draw a frame offscreen (any adapter wgpu finds, lavapipe
//! included) and save it as a PNG.

use std::path::Path;

use render::{Frame, Gpu, RenderError, Renderer, OFFSCREEN_FORMAT};

use crate::config::Config;

/// Render `frame` with `config`'s font, theme and padding into `path`.
pub fn save_png(frame: &Frame, config: &Config, path: &Path) -> Result<(), RenderError> {
    let gpu = Gpu::new_headless()?;
    let mut renderer = Renderer::new(
        &gpu,
        config.font_config(1.0),
        config.theme(),
        OFFSCREEN_FORMAT,
    )?;
    let padding = u32::from(config.window.padding);
    renderer.set_padding(padding);
    let (cell_w, cell_h) = renderer.cell_size();
    let width = frame.cols as u32 * cell_w + 2 * padding;
    let height = frame.rows as u32 * cell_h + 2 * padding;
    renderer
        .render_to_image(frame, width, height)?
        .save_png(path)
}
