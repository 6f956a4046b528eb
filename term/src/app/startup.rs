//! Opening the window: the shell in a PTY of the configured grid, the
//! surface and the renderer sized to that grid.
//!
//! The GPU is the slow part of starting (a software rasteriser loads and
//! links a compiler first), so it does not go first: a second thread loads
//! the fonts, which give the cell size, and starts the shell at once, while
//! the window and the GPU come up here. The shell's own start-up (its rc
//! files, or the first output of a `-e` command) runs beside koi's.

use std::sync::Arc;

use anyhow::anyhow;
use winit::event_loop::{ActiveEventLoop, EventLoopProxy};
use winit::window::Window;

use super::display::Display;
use super::workspace::{Spawn, Workspace};
use super::{AppOptions, Terminal, UserEvent};
use koi_terminal::GridSize;

pub(super) fn open(
    event_loop: &ActiveEventLoop,
    options: &AppOptions,
    proxy: &EventLoopProxy<UserEvent>,
) -> anyhow::Result<Terminal> {
    let config = &options.loaded.config;
    let cols = options.cols.unwrap_or(config.window.columns);
    let rows = options.rows.unwrap_or(config.window.lines);
    // The window most likely opens on the primary monitor, at its scale;
    // `Display::new` measures again if it does not.
    let scale = event_loop
        .primary_monitor()
        .map_or(1.0, |monitor| monitor.scale_factor());
    let font = config.font_config(scale);
    std::thread::scope(|scope| {
        let early = std::thread::Builder::new()
            .name("koi-start".into())
            .spawn_scoped(scope, || {
                let fonts = render::Fonts::new(&font);
                let (width, height) = fonts.cell_size();
                let px = |v: u32| u16::try_from(v).unwrap_or(u16::MAX);
                let grid = GridSize::new(cols, rows).with_cell_px(px(width), px(height));
                let spawn = Spawn {
                    config,
                    command: options.command.clone(),
                    working_directory: options.working_directory.clone(),
                };
                (fonts, Workspace::open(spawn, grid, proxy.clone()))
            })?;
        let attributes = Window::default_attributes()
            .with_title("koi")
            .with_transparent(config.window.translucent())
            .with_inner_size(winit::dpi::LogicalSize::new(800.0, 500.0));
        // The window's class (X11) and app id (Wayland) name koi.desktop, so
        // a desktop shows the installed entry's icon and name for it.
        #[cfg(all(unix, not(target_os = "macos")))]
        let attributes = winit::platform::wayland::WindowAttributesExtWayland::with_name(
            attributes, "koi", "koi",
        );
        let window = Arc::new(event_loop.create_window(attributes)?);
        #[cfg(all(unix, not(target_os = "macos")))]
        if matches!(
            winit::raw_window_handle::HasWindowHandle::window_handle(&*window).map(|h| h.as_raw()),
            Ok(winit::raw_window_handle::RawWindowHandle::Xlib(_)
                | winit::raw_window_handle::RawWindowHandle::Xcb(_))
        ) {
            super::wayland_log::route_to_log();
        }
        let mut workspace = None;
        let handle = event_loop.owned_display_handle();
        let mut display = Display::new(window.clone(), handle, config, || {
            let (fonts, opened) = early
                .join()
                .map_err(|_| anyhow!("koi's start-up thread panicked"))?;
            workspace = Some(opened?);
            Ok(fonts)
        })?;
        let mut workspace = workspace.ok_or_else(|| anyhow!("the shell did not start"))?;
        let wanted = display.size_for_grid(cols, rows);
        display.resize(window.request_inner_size(wanted).unwrap_or(wanted));
        window.set_ime_allowed(true);
        // The same grid unless the window came out another size (a tiling
        // window manager) or scale: the shell then gets its SIGWINCH.
        workspace.relayout(display.grid_size());
        window.request_redraw();
        Ok(Terminal { display, workspace })
    })
}
