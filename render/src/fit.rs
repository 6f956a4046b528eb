//! Fitting a fixed text (a title, a bar, a hint) into the columns it has:
//! the one rule every such text koi draws follows. Whole when it fits;
//! otherwise the least important parts go first and the text ends with
//! `…`; a part is shortened only at a word boundary, never inside a word.

use unicode_width::UnicodeWidthStr;

/// What marks a shortened text.
pub const ELLIPSIS: &str = "…";

/// One part of a fixed text and how much it matters: when the text does
/// not fit, the part with the lowest `rank` is dropped first (the later
/// one among equals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part<'a> {
    /// The part's text; an empty part is left out (no separator for it).
    pub text: &'a str,
    /// How much it matters: higher ranks are kept longer.
    pub rank: u8,
}

impl<'a> Part<'a> {
    /// A part of `text` ranked `rank`.
    pub const fn new(text: &'a str, rank: u8) -> Self {
        Self { text, rank }
    }
}

/// The parts that fit, in their original order, each with its index in
/// the input and its (maybe shortened) text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fitted {
    /// `(index, text)` of every part kept.
    pub kept: Vec<(usize, String)>,
    /// Something was dropped or shortened: [`ELLIPSIS`] ends the text.
    pub shortened: bool,
}

impl Fitted {
    /// The kept parts joined by `separator`, with the ellipsis when
    /// something was left out.
    pub fn join(&self, separator: &str) -> String {
        let mut out = self
            .kept
            .iter()
            .map(|(_, text)| text.as_str())
            .collect::<Vec<_>>()
            .join(separator);
        if self.shortened {
            if !out.is_empty() && !out.ends_with(' ') {
                out.push(' ');
            }
            out.push_str(ELLIPSIS);
        }
        out
    }
}

/// The display width of `text` in terminal columns.
pub fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// `parts` joined by `separator` in at most `columns` columns (see the
/// module's rule). The result's [`Fitted::join`] is never wider than
/// `columns` and never holds part of a word; when even the most important
/// part's first word does not fit, only the ellipsis is left (nothing at
/// all in zero columns).
pub fn fit(parts: &[Part<'_>], separator: &str, columns: usize) -> Fitted {
    let mut kept: Vec<usize> = (0..parts.len())
        .filter(|&i| !parts[i].text.is_empty())
        .collect();
    let mut shortened = false;
    let joined = |kept: &[usize]| -> Fitted {
        Fitted {
            kept: kept
                .iter()
                .map(|&i| (i, parts[i].text.to_owned()))
                .collect(),
            shortened: false,
        }
    };
    loop {
        let mut candidate = joined(&kept);
        candidate.shortened = shortened;
        if width(&candidate.join(separator)) <= columns {
            return candidate;
        }
        if kept.len() <= 1 {
            break;
        }
        // The least important part goes; the later one among equals.
        let Some(pos) = (0..kept.len()).rev().min_by_key(|&p| parts[kept[p]].rank) else {
            break;
        };
        kept.remove(pos);
        shortened = true;
    }
    // One part is left and too wide with its ellipsis: its leading words.
    let Some(&last) = kept.first() else {
        return Fitted::default();
    };
    let room = columns.saturating_sub(width(ELLIPSIS) + 1);
    let text = leading_words(parts[last].text, room);
    if text.is_empty() {
        return Fitted {
            kept: Vec::new(),
            shortened: columns >= width(ELLIPSIS),
        };
    }
    Fitted {
        kept: vec![(last, text.to_owned())],
        shortened: true,
    }
}

/// `text` made of parts joined by `separator`, the earlier ones the more
/// important (key hints, say), fitted into `columns` and joined again.
pub fn fit_ranked_by_order(text: &str, separator: &str, columns: usize) -> String {
    let pieces: Vec<&str> = text.split(separator).collect();
    let count = pieces.len();
    let parts: Vec<Part<'_>> = pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| Part::new(piece, u8::try_from(count - i).unwrap_or(u8::MAX)))
        .collect();
    fit(&parts, separator, columns).join(separator)
}

/// The longest start of `text` that ends at a word boundary (before a
/// space, or after a `/` of a path) and is at most `columns` wide, with
/// trailing spaces trimmed.
fn leading_words(text: &str, columns: usize) -> &str {
    let mut best = "";
    for (i, c) in text.char_indices() {
        let end = match c {
            ' ' => i,
            '/' => i + 1,
            _ => continue,
        };
        let head = text[..end].trim_end();
        if width(head) > columns {
            break;
        }
        best = head;
    }
    if width(text) <= columns {
        best = text.trim_end();
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of `text`, separators and the ellipsis left out.
    fn words(text: &str) -> Vec<&str> {
        text.split([' ', '/'])
            .filter(|w| !w.is_empty() && *w != "·" && *w != ELLIPSIS)
            .collect()
    }

    const TITLE: [Part<'static>; 5] = [
        Part::new("koi assistant", 1),
        Part::new("qwen2.5-coder:32b (demo)", 3),
        Part::new("workspace-write", 2),
        Part::new("⠋ working", 4),
        Part::new(
            "sandbox unavailable: Landlock is not supported by this kernel",
            5,
        ),
    ];

    #[test]
    fn every_width_keeps_whole_words_and_the_most_important_part() {
        let full = fit(&TITLE, " · ", 1000).join(" · ");
        assert!(!full.ends_with(ELLIPSIS), "{full}");
        let source_words = words(&full);
        for columns in 0..=200 {
            let fitted = fit(&TITLE, " · ", columns);
            let text = fitted.join(" · ");
            assert!(width(&text) <= columns, "{columns}: {text:?}");
            // Never a cut word: every word shown is a word of the source.
            for word in words(&text) {
                assert!(
                    source_words.contains(&word),
                    "{columns}: {word:?} in {text:?}"
                );
            }
            assert_eq!(
                text.ends_with(ELLIPSIS),
                text != full && columns > 0,
                "{columns}: {text:?}"
            );
            // The parts kept keep their order.
            let order: Vec<usize> = fitted.kept.iter().map(|(i, _)| *i).collect();
            assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
            // The sandbox's state goes last: shown whenever anything is.
            if columns >= 22 {
                assert!(
                    text.starts_with("sandbox unavailable")
                        || text.contains("· sandbox unavailable"),
                    "{columns}: {text:?}"
                );
            }
        }
        // The least important parts go first: the name before the model.
        let at_60 = fit(&TITLE, " · ", 60).join(" · ");
        assert!(!at_60.contains("koi assistant"), "{at_60}");
        let at_120 = fit(&TITLE, " · ", 120).join(" · ");
        assert!(
            at_120.starts_with("qwen2.5-coder:32b (demo) · workspace-write · ⠋ working · sandbox"),
            "{at_120}"
        );
    }

    #[test]
    fn a_single_part_shortens_at_words_and_paths() {
        let one = |text: &str, columns| fit(&[Part::new(text, 1)], " · ", columns).join(" · ");
        assert_eq!(one("⏎ fix (Ctrl+Shift+E)", 20), "⏎ fix (Ctrl+Shift+E)");
        assert_eq!(one("⏎ fix (Ctrl+Shift+E)", 19), "⏎ fix …");
        assert_eq!(one("~/src/koi/term", 10), "~/src/ …");
        assert_eq!(one("supercalifragilistic", 8), ELLIPSIS);
        assert_eq!(one("anything", 0), "");
        // Wide characters count as two columns.
        assert_eq!(one("日本語 テキスト", 9), "日本語 …");
    }

    #[test]
    fn hints_drop_from_the_end() {
        let hints = "Enter send · Ctrl+Y insert · Esc close";
        assert_eq!(fit_ranked_by_order(hints, " · ", 40), hints);
        assert_eq!(
            fit_ranked_by_order(hints, " · ", 30),
            "Enter send · Ctrl+Y insert …"
        );
        assert_eq!(fit_ranked_by_order(hints, " · ", 12), "Enter send …");
        assert_eq!(fit_ranked_by_order(hints, " · ", 11), "Enter …");
    }
}
