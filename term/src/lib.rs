//! The koi terminal app: the winit window and event loop ([`app`]), the
//! config with live reload ([`config`]), the chat overlay ([`overlay`]),
//! terminal state laid out as a renderer frame ([`frame`]) and the
//! `koi --headless` runner ([`headless`]). The GUI-free core (the PTY
//! session, input encoders, pictures, snapshots) is `koi_terminal`.

pub mod app;
pub mod config;
pub mod frame;
pub mod headless;
pub mod logger;
pub mod overlay;
pub mod screenshot;
pub mod theme;
