//! The koi terminal core, with no GUI: a shell in a real PTY parsed into
//! `alacritty_terminal` state ([`session`]), the pure encoders that turn
//! keys, mouse events and pastes into the bytes xterm would send
//! ([`input`]), pictures on the grid ([`graphics`]), screen snapshots for
//! tests and scripts ([`snapshot`]) and shell integration
//! ([`shell_integration`]). The winit app in `term` builds on it, as
//! Alacritty's app builds on `alacritty_terminal`.

pub mod graphics;
pub mod input;
pub mod overlay_token;
pub mod palette;
pub mod prompt_suggest;
pub mod raster_threads;
pub mod session;
pub mod shell_integration;
pub mod snapshot;
pub mod trace;

pub use session::{ExitStatus, GridSize, Session, SessionEvent, SessionOptions};
