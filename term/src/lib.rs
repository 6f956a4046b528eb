//! The koi terminal: a shell in a real PTY parsed into `alacritty_terminal`
//! state ([`session`]), the pure encoders that turn keys, mouse events and
//! pastes into the bytes xterm would send ([`input`]), screen snapshots for
//! tests and scripts ([`snapshot`]), and the `koi --headless` runner
//! ([`headless`]). The winit app builds on these.

pub mod app;
pub mod config;
pub mod frame;
pub mod graphics;
pub mod headless;
pub mod input;
pub mod overlay;
pub mod overlay_token;
pub mod palette;
pub mod prompt_suggest;
pub mod raster_threads;
pub mod screenshot;
pub mod session;
pub mod shell_integration;
pub mod snapshot;
pub mod theme;
pub mod trace;

pub use session::{ExitStatus, GridSize, Session, SessionEvent, SessionOptions};
