//! Plain data that crosses from the terminal core to the renderer: decoded
//! pictures and the tiles that place them on the grid ([`picture`]), the
//! colour theme ([`theme`]) and when each step of a frame finished
//! ([`timings`]). No GPU and no PTY: the terminal core and the renderer
//! both build on it, and neither depends on the other.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod picture;
pub mod theme;
pub mod timings;

/// The colour type every theme slot holds.
pub use koi_markdown::Rgb;
pub use picture::{FracRect, PictureLayer, PicturePixels, PictureTile, BELOW_BACKGROUND_Z};
pub use theme::{xterm_palette, Theme, DIM_FACTOR};
pub use timings::FrameTimings;
