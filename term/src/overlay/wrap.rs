//! Wrapping styled text to a width in cells lives with the answer layout
//! in `koi_markdown`; the panel wraps its other text with the same rules.

pub use koi_markdown::wrap::*;
