//! The coloured form of [`render::fit`]: the bars and hints koi draws over
//! the panes are parts of different colours, fitted by the one rule (the
//! least important parts go first, the text ends with `…`, no word is cut).

use render::{Color, Part, Span};

/// `parts` (each with its colour) joined by `separator`, fitted into
/// `columns`. A separator takes the colour of the part after it; the
/// ellipsis the colour of the last part kept (the first part's when none
/// is).
pub(super) fn spans(parts: &[(Part<'_>, Color)], separator: &str, columns: usize) -> Vec<Span> {
    let plain: Vec<Part<'_>> = parts.iter().map(|(part, _)| *part).collect();
    let fitted = render::fit(&plain, separator, columns);
    let color = |i: usize| {
        parts
            .get(i)
            .map_or(Color::Named(render::NamedColor::Foreground), |p| p.1)
    };
    let mut out = Vec::with_capacity(fitted.kept.len() * 2 + 1);
    for (n, (index, text)) in fitted.kept.iter().enumerate() {
        if n > 0 {
            out.push(Span::new(separator, color(*index)));
        }
        out.push(Span::new(text.clone(), color(*index)));
    }
    if fitted.shortened {
        let last = fitted.kept.last().map_or(0, |(i, _)| *i);
        let gap = if fitted.kept.is_empty() { "" } else { " " };
        out.push(Span::new(format!("{gap}{}", render::ELLIPSIS), color(last)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_follow_their_parts_and_the_text_matches_fit() {
        let (a, b) = (
            Color::Named(render::NamedColor::Red),
            Color::Named(render::NamedColor::Blue),
        );
        let parts = [
            (Part::new("query", 3), a),
            (Part::new("Enter next", 1), b),
            (Part::new("12 of 40", 2), a),
        ];
        for columns in 0..40 {
            let spans = spans(&parts, "  ", columns);
            let text: String = spans.iter().map(|s| s.text.as_str()).collect();
            let plain: Vec<Part<'_>> = parts.iter().map(|(p, _)| *p).collect();
            assert_eq!(
                text,
                render::fit(&plain, "  ", columns).join("  "),
                "{columns}"
            );
        }
        let spans = spans(&parts, "  ", 17);
        let text: Vec<(&str, Color)> = spans.iter().map(|s| (s.text.as_str(), s.fg)).collect();
        assert_eq!(
            text,
            vec![("query", a), ("  ", a), ("12 of 40", a), (" …", a)]
        );
    }
}
