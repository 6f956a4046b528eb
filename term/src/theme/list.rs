//! `koi --list-themes`: every bundled scheme with a truecolor swatch.

use std::fmt::Write as _;

use render::Rgb;

use super::bundled::BUNDLED;
use super::file;
use crate::config::colors::ColorsConfig;

/// The listing: one line per scheme, its name, then its background with
/// its sixteen ANSI colours as blocks on it.
pub fn render() -> String {
    let width = BUNDLED.iter().map(|b| b.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for theme in BUNDLED {
        let _ = write!(out, "{:width$}  ", theme.name);
        match file::parse(theme.text) {
            Ok(parsed) => swatch(&mut out, &parsed.colors),
            Err(e) => out.push_str(&e),
        }
        out.push('\n');
    }
    out
}

fn swatch(out: &mut String, colors: &ColorsConfig) {
    let theme = colors.theme();
    let bg = theme.background;
    let _ = write!(out, "\x1b[48;2;{};{};{}m ", bg.r, bg.g, bg.b);
    let block = |out: &mut String, c: Rgb| {
        let _ = write!(out, "\x1b[38;2;{};{};{}m██", c.r, c.g, c.b);
    };
    for color in &theme.palette[..16] {
        block(out, *color);
    }
    let fg = theme.foreground;
    let _ = write!(out, " \x1b[38;2;{};{};{}mkoi \x1b[0m", fg.r, fg.g, fg.b);
}
