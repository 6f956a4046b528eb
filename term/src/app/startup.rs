//! Opening the window: the surface and renderer sized to the configured grid,
//! then the shell in a PTY of exactly that grid.

use std::sync::Arc;

use winit::event_loop::{ActiveEventLoop, EventLoopProxy};
use winit::window::Window;

use super::display::Display;
use super::workspace::{Spawn, Workspace};
use super::{AppOptions, Terminal, UserEvent};

pub(super) fn open(
    event_loop: &ActiveEventLoop,
    options: &AppOptions,
    proxy: &EventLoopProxy<UserEvent>,
) -> anyhow::Result<Terminal> {
    let config = &options.loaded.config;
    let attributes = Window::default_attributes()
        .with_title("koi")
        .with_transparent(config.window.opacity < 1.0)
        .with_inner_size(winit::dpi::LogicalSize::new(800.0, 500.0));
    let window = Arc::new(event_loop.create_window(attributes)?);
    #[cfg(all(unix, not(target_os = "macos")))]
    if matches!(
        winit::raw_window_handle::HasWindowHandle::window_handle(&*window).map(|h| h.as_raw()),
        Ok(winit::raw_window_handle::RawWindowHandle::Xlib(_)
            | winit::raw_window_handle::RawWindowHandle::Xcb(_))
    ) {
        super::wayland_log::route_to_log();
    }
    let instance = render::Gpu::new_instance_with_display(event_loop.owned_display_handle());
    let mut display = Display::new(window.clone(), instance, config)?;
    let cols = options.cols.unwrap_or(config.window.columns);
    let rows = options.rows.unwrap_or(config.window.lines);
    let wanted = display.size_for_grid(cols, rows);
    display.resize(window.request_inner_size(wanted).unwrap_or(wanted));
    window.set_ime_allowed(true);

    let workspace = Workspace::open(
        Spawn {
            config,
            command: options.command.clone(),
            working_directory: options.working_directory.clone(),
        },
        display.grid_size(),
        proxy.clone(),
    )?;
    window.request_redraw();
    Ok(Terminal { display, workspace })
}
