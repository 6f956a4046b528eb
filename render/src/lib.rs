//! The wgpu renderer: turns a plain description of a frame (cells, cursor,
//! selection, overlay layers) into pixels on a window surface or into an
//! offscreen RGBA image. It spawns no processes and parses no VT bytes.
//!
//! Every glyph is its own text area positioned by its column, so text stays
//! on the grid whatever font a glyph falls back to; the grid is split into
//! one glyph batch per row and only rows that changed are rebuilt. Box
//! drawing, block elements, braille and underlines are drawn procedurally
//! so they join across cells.
//!
//! Offscreen:
//! ```no_run
//! use render::{Cell, FontConfig, Frame, Gpu, Renderer, Theme, OFFSCREEN_FORMAT};
//! let gpu = Gpu::new_headless()?;
//! let mut renderer = Renderer::new(&gpu, FontConfig::default(), Theme::default(), OFFSCREEN_FORMAT)?;
//! let mut frame = Frame::blank(80, 24);
//! frame.write_str(0, 0, "hello", &Cell::new(' '));
//! let (cw, ch) = renderer.cell_size();
//! renderer.render_to_image(&frame, 80 * cw, 24 * ch)?.save_png("out.png")?;
//! # Ok::<(), render::RenderError>(())
//! ```
//!
//! In a window (the caller owns winit; `render` never depends on it):
//! ```no_run
//! # fn demo<D>(display: D, window: std::sync::Arc<impl render::wgpu::DisplayAndWindowHandle + 'static>) -> Result<(), Box<dyn std::error::Error>>
//! # where D: render::wgpu::rwh::HasDisplayHandle + Clone + std::fmt::Debug + Send + Sync + 'static {
//! use render::{FontConfig, Frame, Gpu, Renderer, Theme, WindowSurface};
//! // `display`: with winit, `event_loop.owned_display_handle()`.
//! let (gpu, surface) = Gpu::for_window(|| display.clone(), |instance| {
//!     instance.create_surface(window.clone())
//! })?;
//! let mut target = WindowSurface::new(&gpu, surface, (1280, 800), false)?;
//! let font = FontConfig { family: None, size_pt: 12.0, scale_factor: 2.0, ligatures: true };
//! let mut renderer = Renderer::new(&gpu, font, Theme::default(), target.format())?;
//! renderer.set_padding(8);
//! let (cols, rows) = renderer.grid_size_for(1280, 800);
//! renderer.render_to_surface(&mut target, &Frame::blank(cols, rows))?;
//! // On resize: target.resize(&gpu, w, h); on zoom: renderer.set_font(&new_font).
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cell;
mod chrome;
mod color;
mod compose;
mod cpu_target;
mod cursor;
mod error;
mod fit;
mod font;
mod frame;
mod gpu;
mod image;
mod ligature;
mod line;
mod offscreen;
mod output;
mod overlay;
mod overlay_draw;
mod procedural;
mod quads;
mod rects;
mod renderer;
mod shaping;
mod surface;
mod tab_bar;
mod target;
mod theme;

// The picture types live in `render_types`: the terminal core makes them.
use render_types::picture;

pub use chrome::{ChromeColors, TabLabel};
pub use color::{Color, NamedColor, Rgb};
pub use compose::{
    place_in_pane, CellRect, Composer, Divider, DividerAxis, Highlight, PaneView, Scene, TabBar,
};
pub use cpu_target::{CpuTarget, PixelRows};
pub use error::RenderError;
pub use fit::{fit, fit_ranked_by_order, Fitted, Part, ELLIPSIS};
pub use font::{CellMetrics, FontConfig, Fonts, FALLBACK_FAMILY};
pub use frame::{
    Cell, CellFlags, CursorShape, CursorSpec, Damage, Frame, SelectionSpan, UnderlineStyle,
};
pub use gpu::{Gpu, ADAPTER_NAME_ENV};
pub use image::RgbaImage;
pub use overlay::{Border, Break, OverlayLayer, OverlayPicture, OverlayRect, Span, StyledLine};
pub use picture::{FracRect, PicturePixels, PictureTile, BELOW_BACKGROUND_Z};
pub use renderer::{PrepareStats, Renderer, OFFSCREEN_FORMAT};
pub use surface::WindowSurface;
pub use tab_bar::tab_at;
pub use target::FrameTimings;
pub use theme::{xterm_palette, ResolvedColors, Theme, DIM_FACTOR};

/// Re-exported so callers can name surfaces, formats and views without
/// depending on a possibly different wgpu version.
pub use wgpu;
