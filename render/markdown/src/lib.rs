//! Assistant answers as styled lines at a width, for both front ends: the
//! overlay draws the lines as grid cells, `k` prints them as SGR.
//!
//! Markdown is parsed with pulldown-cmark (CommonMark with GFM tables, task
//! lists and strikethrough) and fenced code is coloured with syntect's
//! grammars, loaded on first use. A soft line break stays a line break, as
//! chat answers are written; a blank line in the source stays one blank
//! line. Every prefix of an answer lays out sensibly, so a streaming answer
//! can be re-laid at every token; [`Renderer`] caches the blocks that did
//! not change.
//!
//! ```
//! use koi_markdown::{render, Palette};
//! let lines = render("# Title\n\n- **one**\n- two", 40, &Palette::ansi());
//! let text: Vec<String> = lines.iter().map(|l| l.text()).collect();
//! assert_eq!(text, ["Title", "", "• one", "• two"]);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ansi;
mod code_blocks;
mod color;
mod highlight;
mod layout;
mod palette;
mod styled;
pub mod wrap;

pub use code_blocks::{code_blocks, CodeBlock};
pub use color::{Color, NamedColor, Rgb};
pub use highlight::CodeHighlighter;
pub use layout::{render, Layout, Renderer};
pub use palette::Palette;
pub use styled::{Break, Span, StyledLine};
