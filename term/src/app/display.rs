//! The window's pixels: the wgpu surface, the renderer, the frame builder,
//! and the overlays koi draws over the grid (error banner, IME preedit).

use std::path::Path;
use std::sync::Arc;

use render::{
    Color, Gpu, NamedColor, OverlayLayer, OverlayRect, Renderer, Span, StyledLine, WindowSurface,
};
use winit::dpi::{PhysicalPosition, PhysicalSize};
use winit::raw_window_handle::{HasWindowHandle, RawWindowHandle};
use winit::window::Window;

use super::mouse::Geometry;
use crate::config::Config;
use crate::frame::CursorOptions;
use koi_terminal::GridSize;

/// Zoom steps, in points.
const ZOOM_STEP: f32 = 1.0;
/// Zoom stays within sizes that are still a terminal.
const ZOOM_RANGE: (f32, f32) = (5.0, 72.0);

/// The assistant panel's layers and the cell of its input cursor.
pub type AssistantLayers = (Vec<OverlayLayer>, Option<(usize, usize)>);

/// Where frames go.
enum Target {
    /// The wgpu surface: a GPU, Wayland, or `KOI_PRESENT=surface`.
    Surface(WindowSurface),
    /// `PutImage` of the rows that changed: a CPU rasteriser on X11.
    #[cfg(all(unix, not(target_os = "macos")))]
    PutImage {
        /// Boxed: the connection is large, and the surface is the usual case.
        x11: Box<super::x11_present::X11Present>,
        shown: render::CpuTarget,
        size: (u32, u32),
    },
}

impl Target {
    fn size(&self) -> (u32, u32) {
        match self {
            Target::Surface(surface) => surface.size(),
            #[cfg(all(unix, not(target_os = "macos")))]
            Target::PutImage { size, .. } => *size,
        }
    }
}

pub struct Display {
    pub window: Arc<Window>,
    gpu: Gpu,
    target: Target,
    pub renderer: Renderer,
    /// The chrome's colours, derived from the renderer's theme.
    pub chrome: render::ChromeColors,
    composer: render::Composer,
    /// Font size in points, after zoom.
    font_size: f32,
    /// Padding in logical pixels, from the config.
    padding: u16,
    /// The one-line error banner, while the config is broken.
    pub banner: Option<String>,
    /// A question koi waits on an answer to (closing a busy pane).
    pub question: Option<String>,
    /// IME composition text, drawn at the cursor.
    pub preedit: Option<String>,
    pub cursor: CursorOptions,
    /// The assistant panel, while it is open.
    pub assistant: Option<AssistantLayers>,
    /// The search bar, while it is open.
    pub bar: Option<OverlayLayer>,
    /// Hint labels, while hints mode is on.
    pub hints: Vec<OverlayLayer>,
    /// The target of the link under the pointer (or what became of it).
    pub link: Option<String>,
    /// The window is an X11 one: its input method takes a single point,
    /// the XIM spot, where the preedit's baseline goes (see `place_ime`).
    x11: bool,
    /// The window was opened translucent (`WindowConfig::translucent`):
    /// its background takes `window.opacity`, live.
    translucent: bool,
}

impl Display {
    /// `fonts` is called once the GPU is up (they load meanwhile on another
    /// thread, see [`super::startup`]). They were measured for a guessed
    /// scale factor, and are measured again if the window's differs.
    pub fn new(
        window: Arc<Window>,
        display: winit::event_loop::OwnedDisplayHandle,
        config: &Config,
        fonts: impl FnOnce() -> anyhow::Result<render::Fonts>,
    ) -> anyhow::Result<Self> {
        let (gpu, surface) = Gpu::for_window(
            || display.clone(),
            |instance| instance.create_surface(window.clone()),
        )?;
        let size = window.inner_size();
        let scale = window.scale_factor();
        let x11 = matches!(
            window.window_handle().map(|h| h.as_raw()),
            Ok(RawWindowHandle::Xlib(_) | RawWindowHandle::Xcb(_))
        );
        let translucent = config.window.translucent();
        let target = choose_target(
            &gpu,
            surface,
            &window,
            x11,
            (size.width, size.height),
            translucent,
        )?;
        let format = match &target {
            Target::Surface(surface) => surface.format(),
            // X11's 32-bit TrueColor pixels, byte for byte.
            #[cfg(all(unix, not(target_os = "macos")))]
            Target::PutImage { .. } => render::wgpu::TextureFormat::Bgra8Unorm,
        };
        let mut renderer = Renderer::with_fonts(&gpu, fonts()?, config.theme(), format)?;
        let font = config.font_config(scale);
        if *renderer.font_config() != font {
            renderer.set_font(&font);
        }
        if gpu.is_cpu() {
            // Shaders compile now, while the shell starts, not in its
            // first frame; a failure here only loses the head start.
            if let Err(err) = renderer.warm_up() {
                log::debug!("render: warm-up frame: {err}");
            }
        }
        let mut display = Self {
            window,
            gpu,
            target,
            chrome: render::ChromeColors::from_theme(&config.theme()),
            renderer,
            composer: render::Composer::default(),
            font_size: config.font.size,
            padding: config.window.padding,
            banner: None,
            question: None,
            preedit: None,
            cursor: CursorOptions {
                focused: true,
                blinked_off: false,
            },
            assistant: None,
            bar: None,
            hints: Vec::new(),
            link: None,
            x11,
            translucent,
        };
        display.apply_padding();
        display.apply_opacity(config);
        Ok(display)
    }

    /// The background takes `window.opacity` in a window opened
    /// translucent; an opaque window stays opaque until the next start.
    fn apply_opacity(&mut self, config: &Config) {
        if self.translucent {
            self.renderer.set_background_opacity(config.window.opacity);
        } else if config.window.translucent() {
            log::warn!(
                "window.opacity = {} applies from the next start: this window was opened opaque",
                config.window.opacity
            );
        }
    }

    fn apply_padding(&mut self) {
        let px = (f64::from(self.padding) * self.window.scale_factor()).round() as u32;
        self.renderer.set_padding(px);
    }

    /// Whether a CPU rasteriser draws the frames (on the cores the parser
    /// needs).
    pub fn drawn_by_cpu(&self) -> bool {
        self.gpu.is_cpu()
    }

    /// How frames reach the window, and from which adapter.
    pub fn presenter(&self) -> String {
        let how = match self.target {
            Target::Surface(_) => "the surface",
            #[cfg(all(unix, not(target_os = "macos")))]
            Target::PutImage { .. } => "PutImage",
        };
        format!("{how} (adapter {})", self.gpu.adapter_summary())
    }

    /// The window size that fits `cols × rows` cells plus padding.
    pub fn size_for_grid(&self, cols: u16, rows: u16) -> PhysicalSize<u32> {
        let (cw, ch) = self.renderer.cell_size();
        let pad = 2 * self.renderer.padding();
        PhysicalSize::new(u32::from(cols) * cw + pad, u32::from(rows) * ch + pad)
    }

    /// The grid that fits the window now.
    pub fn grid_size(&self) -> GridSize {
        let (w, h) = self.target.size();
        let (cols, rows) = self.renderer.grid_size_for(w, h);
        let (cw, ch) = self.renderer.cell_size();
        let clamp = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
        GridSize::new(clamp(cols), clamp(rows)).with_cell_px(clamp(cw as usize), clamp(ch as usize))
    }

    /// Where the pane in window cells `rect` sits, in pixels.
    pub fn geometry(&self, rect: render::CellRect) -> Geometry {
        let (cell_width, cell_height) = self.renderer.cell_size();
        let pad = self.renderer.padding();
        let px = |cells: usize, cell: u32| u32::try_from(cells).unwrap_or(0).saturating_mul(cell);
        Geometry {
            cell_width,
            cell_height,
            origin: (
                pad + px(rect.col, cell_width),
                pad + px(rect.row, cell_height),
            ),
            cols: rect.cols.max(1),
            rows: rect.rows.max(1),
        }
    }

    /// The window cell under `pos`, if it is inside the grid.
    pub fn window_cell(&self, pos: PhysicalPosition<f64>) -> Option<(usize, usize)> {
        let (cw, ch) = self.renderer.cell_size();
        let pad = f64::from(self.renderer.padding());
        let (x, y) = (pos.x - pad, pos.y - pad);
        if x < 0.0 || y < 0.0 {
            return None;
        }
        let grid = self.grid_size();
        let (col, row) = (
            (x / f64::from(cw.max(1))) as usize,
            (y / f64::from(ch.max(1))) as usize,
        );
        (col < usize::from(grid.cols) && row < usize::from(grid.rows)).then_some((col, row))
    }

    pub fn resize(&mut self, size: PhysicalSize<u32>) {
        let (w, h) = (size.width.max(1), size.height.max(1));
        match &mut self.target {
            Target::Surface(surface) => surface.resize(&self.gpu, w, h),
            #[cfg(all(unix, not(target_os = "macos")))]
            Target::PutImage { size, .. } => *size = (w, h),
        }
    }

    /// New font family/size/scale: returns the grid that now fits.
    pub fn set_font(&mut self, config: &Config) -> GridSize {
        let mut font = config.font_config(self.window.scale_factor());
        font.size_pt = self.font_size;
        self.renderer.set_font(&font);
        self.apply_padding();
        self.grid_size()
    }

    /// Zoom by `steps` (0 resets to the configured size).
    pub fn zoom(&mut self, config: &Config, steps: i32) -> GridSize {
        self.font_size = if steps == 0 {
            config.font.size
        } else {
            (self.font_size + steps as f32 * ZOOM_STEP).clamp(ZOOM_RANGE.0, ZOOM_RANGE.1)
        };
        self.set_font(config)
    }

    /// Draw with `config`'s theme (the grid, the chrome and the bars).
    pub fn set_theme(&mut self, config: &Config) {
        let theme = config.theme();
        self.chrome = render::ChromeColors::from_theme(&theme);
        self.renderer.set_theme(theme);
        self.window.request_redraw();
    }

    /// Apply a reloaded config (font size resets to the new configured size).
    pub fn reconfigure(&mut self, config: &Config) -> GridSize {
        self.set_theme(config);
        self.apply_opacity(config);
        self.padding = config.window.padding;
        self.font_size = config.font.size;
        self.set_font(config)
    }

    pub fn scale_factor_changed(&mut self, config: &Config) -> GridSize {
        self.set_font(config)
    }

    /// Compose the frame of everything shown (panes, dividers, tab bar).
    pub fn compose(&mut self, scene: &render::Scene<'_>) {
        self.composer.compose(scene);
    }

    /// Draw the last built frame with koi's overlays and present it.
    pub fn present(&mut self) {
        self.set_overlays();
        let frame = self.composer.frame();
        let drawn = match &mut self.target {
            Target::Surface(surface) => self.renderer.render_to_surface(surface, frame).map(|_| ()),
            #[cfg(all(unix, not(target_os = "macos")))]
            Target::PutImage { x11, shown, size } => {
                if x11.take_exposed() {
                    shown.invalidate();
                }
                let mut sent = Ok(());
                let drawn = self
                    .renderer
                    .render_to_cpu(shown, frame, size.0, size.1, |rows| sent = x11.put(rows));
                if let Err(e) = sent {
                    log::error!("frame not shown: {e}");
                    shown.invalidate();
                }
                drawn.map(|_| ())
            }
        };
        if let Err(e) = drawn {
            log::error!("frame dropped: {e}");
        }
        koi_terminal::trace::theme::presented();
        self.place_ime();
    }

    fn set_overlays(&mut self) {
        let theme_bg = self.renderer.theme().background;
        let chrome = self.chrome;
        let frame = self.composer.frame_mut();
        frame.overlays.clear();
        if let (Some(text), Some(cursor)) = (&self.preedit, frame.cursor) {
            let width = unicode_width::UnicodeWidthStr::width(text.as_str()).max(1);
            let mut span = Span::new(text.clone(), Color::Named(NamedColor::Foreground));
            span.underline = true;
            frame.overlays.push(OverlayLayer {
                rect: OverlayRect::Cells {
                    col: cursor.col,
                    row: cursor.row,
                    cols: width,
                    rows: 1,
                },
                background: Color::Rgb(theme_bg),
                border: None,
                padding_px: 0,
                lines: vec![StyledLine::new(vec![span])],
                pictures: Vec::new(),
            });
        }
        if let Some(bar) = &self.bar {
            frame.overlays.push(bar.clone());
        }
        frame.overlays.extend(self.hints.iter().cloned());
        if let Some(link) = &self.link {
            frame.overlays.push(OverlayLayer {
                rect: OverlayRect::Cells {
                    col: 0,
                    row: frame.rows.saturating_sub(1),
                    cols: frame.cols.max(1),
                    rows: 1,
                },
                background: Color::Rgb(chrome.link_background),
                border: None,
                padding_px: 0,
                lines: vec![StyledLine::new(vec![Span::new(
                    format!(" {link}"),
                    Color::Rgb(chrome.notice_foreground),
                )])],
                pictures: Vec::new(),
            });
        }
        if let Some((layers, _)) = &self.assistant {
            frame.overlays.extend(layers.iter().cloned());
        }
        let lines = [
            (&self.question, chrome.question_background),
            (&self.banner, chrome.banner_background),
        ];
        for (message, background) in lines {
            let Some(message) = message else { continue };
            let cols = frame.cols.max(1);
            let message = render::fit(&[render::Part::new(message, 1)], "", cols - 1).join("");
            frame.overlays.push(OverlayLayer {
                rect: OverlayRect::Cells {
                    col: 0,
                    row: 0,
                    cols,
                    rows: 1,
                },
                background: Color::Rgb(background),
                border: None,
                padding_px: 0,
                lines: vec![StyledLine::new(vec![Span::new(
                    format!(" {message}"),
                    Color::Rgb(chrome.notice_foreground),
                )])],
                pictures: Vec::new(),
            });
        }
    }

    /// Put the input method's candidate window at the cursor.
    ///
    /// On X11 winit passes only the area's position on, as the XIM spot
    /// location, which input methods read as the text's baseline: they
    /// open the candidate window there, below the spot. The cell's top
    /// would put it over the line being typed (and ibus takes a spot of
    /// 0,0 for "none" and falls back to the window's bottom-left), so the
    /// spot is the cell's bottom-left, as GTK's XIM module does.
    fn place_ime(&self) {
        let Some(cursor) = self.composer.frame().cursor else {
            return;
        };
        let (cw, ch) = self.renderer.cell_size();
        let pad = self.renderer.padding();
        let x = pad + cursor.col as u32 * cw;
        let mut y = pad + cursor.row as u32 * ch;
        if self.x11 {
            y += ch;
        }
        self.window
            .set_ime_cursor_area(PhysicalPosition::new(x, y), PhysicalSize::new(cw, ch));
    }

    /// Write the last frame as a PNG, as it was presented.
    pub fn save_png(&mut self, path: &Path) -> Result<(), render::RenderError> {
        self.set_overlays();
        let (w, h) = self.target.size();
        self.renderer
            .render_to_image(self.composer.frame(), w, h)?
            .save_png(path)
    }
}

/// `PutImage` for a CPU rasteriser on X11 (see `x11_present`), else the
/// wgpu surface, configured at `size`.
fn choose_target(
    gpu: &Gpu,
    surface: render::wgpu::Surface<'static>,
    window: &Window,
    x11: bool,
    size: (u32, u32),
    translucent: bool,
) -> Result<Target, render::RenderError> {
    #[cfg(all(unix, not(target_os = "macos")))]
    if x11 && gpu.is_cpu() {
        if let Some(x11) = super::x11_present::X11Present::new(window) {
            log::info!("present: PutImage of the changed rows");
            return Ok(Target::PutImage {
                x11: Box::new(x11),
                shown: render::CpuTarget::new(),
                size: (size.0.max(1), size.1.max(1)),
            });
        }
    }
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    let _ = (window, x11);
    Ok(Target::Surface(WindowSurface::new(
        gpu,
        surface,
        size,
        translucent,
    )?))
}
