//! koi's window end to end: a real X server (Xvfb), the real `koi` binary,
//! real keystrokes (xdotool), pixels read back. Shared by the window tests
//! of `term` and the cross-crate tests in `tests/`.
//!
//! The tools it drives are installed by `scripts/deps`; a missing one
//! fails the test with the package to install.

mod config;
mod image;
mod keyboard;
mod koi;
pub mod ocr;
pub mod scene;
mod xvfb;

pub use config::TestConfig;
pub use image::Image;
pub use koi::Koi;
pub use xvfb::Xvfb;
