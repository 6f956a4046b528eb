//! Styled lines as text for a terminal: SGR attributes, and OSC 8
//! hyperlinks for terminals that know them.

use std::fmt::Write as _;

use crate::color::{Color, NamedColor};
use crate::styled::{Span, StyledLine};

/// Opens an OSC 8 hyperlink (the URI follows, then [`ST`]).
const OSC8: &str = "\x1b]8;;";
/// String terminator.
const ST: &str = "\x1b\\";

/// SGR parameter for `color` as a foreground (`base` 30) or background
/// (`base` 40); `None` for the default.
fn color_param(color: Color, base: u8) -> Option<String> {
    match color {
        Color::Named(named) => {
            if let Some(i) = named.ansi_index() {
                let code = if i < 8 { base + i } else { base + 60 + i - 8 };
                return Some(code.to_string());
            }
            match named {
                NamedColor::DimForeground => (base == 30).then(|| "2".to_string()),
                _ => None,
            }
        }
        Color::Indexed(i) => Some(format!("{};5;{i}", base + 8)),
        Color::Rgb(c) => Some(format!("{};2;{};{};{}", base + 8, c.r, c.g, c.b)),
    }
}

fn sgr(span: &Span) -> String {
    let mut params = vec!["0".to_string()];
    if span.bold {
        params.push("1".into());
    }
    if span.italic {
        params.push("3".into());
    }
    if span.underline {
        params.push("4".into());
    }
    if span.strike {
        params.push("9".into());
    }
    params.extend(color_param(span.fg, 30));
    if let Some(bg) = span.bg {
        params.extend(color_param(bg, 40));
    }
    format!("\x1b[{}m", params.join(";"))
}

/// A link target safe inside OSC 8: printable, no terminator.
fn safe_link(url: &str) -> bool {
    !url.is_empty() && url.len() < 2048 && !url.chars().any(char::is_control)
}

/// `line` as terminal text: each span's attributes, then its text, and a
/// reset at the end. Links become OSC 8 hyperlinks when `hyperlinks`.
/// Control characters in span text are dropped (the layout has already
/// dropped them; this keeps the promise for hand-made lines too).
pub fn line_to_sgr(line: &StyledLine, hyperlinks: bool) -> String {
    let mut out = String::new();
    let mut open_link: Option<&str> = None;
    let mut styled = false;
    for span in &line.spans {
        let link = span.link.as_deref().filter(|u| hyperlinks && safe_link(u));
        if link != open_link {
            if open_link.is_some() {
                let _ = write!(out, "{OSC8}{ST}");
            }
            if let Some(url) = link {
                let _ = write!(out, "{OSC8}{url}{ST}");
            }
            open_link = link;
        }
        let plain = !span.bold
            && !span.italic
            && !span.underline
            && !span.strike
            && span.bg.is_none()
            && color_param(span.fg, 30).is_none();
        if plain && !styled {
            // Nothing to set, nothing to reset.
        } else {
            out.push_str(&sgr(span));
            styled = !plain;
        }
        out.extend(span.text.chars().filter(|c| !c.is_control()));
    }
    if open_link.is_some() {
        let _ = write!(out, "{OSC8}{ST}");
    }
    if styled {
        out.push_str("\x1b[0m");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::color::Rgb;

    #[test]
    fn attributes_colours_and_links() {
        let fg = Color::Named(NamedColor::Foreground);
        let line = StyledLine::new(vec![
            Span::new("plain ", fg),
            Span {
                bold: true,
                ..Span::new("bold", Color::Named(NamedColor::BrightBlue))
            },
            Span {
                link: Some("http://x/".into()),
                underline: true,
                ..Span::new(" link", Color::Rgb(Rgb::new(1, 2, 3)))
            },
            Span::new(" end\x1b", fg),
        ]);
        assert_eq!(
            line_to_sgr(&line, true),
            "plain \x1b[0;1;94mbold\x1b]8;;http://x/\x1b\\\x1b[0;4;38;2;1;2;3m link\
             \x1b]8;;\x1b\\\x1b[0m end"
        );
        assert!(!line_to_sgr(&line, false).contains("\x1b]8"));
        assert_eq!(
            line_to_sgr(&StyledLine::new(vec![Span::new("a", fg)]), true),
            "a"
        );
    }
}
