//! Answers in the panel: `koi_markdown`'s layout (the same one `k` prints)
//! in the overlay's colours, and the code blocks "insert" picks from.

use render::StyledLine;

use super::style::Palette;

pub use koi_markdown::{code_blocks, CodeBlock};

/// Lays `src` out as lines no wider than `width` cells.
pub fn render(src: &str, width: usize, pal: &Palette) -> Vec<StyledLine> {
    koi_markdown::render(src, width, &pal.answer())
}

/// Lays `src` out with `renderer`, which keeps the blocks of the answer it
/// laid out last, so a streaming answer re-lays only its growing block.
pub fn render_with(
    renderer: &mut koi_markdown::Renderer,
    src: &str,
    width: usize,
    pal: &Palette,
) -> Vec<StyledLine> {
    renderer.render(src, width, &pal.answer())
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
