//! The window harness (Xvfb, the real `koi`, xdotool, pixels) lives in
//! `koi_testkit::window`, shared with the cross-crate tests in `tests/`.

pub use koi_testkit::poll::eventually;
pub use koi_testkit::window::*;
