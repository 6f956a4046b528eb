//! Brace expansion, bash's first expansion: `a{b,c}d`, nested lists,
//! sequences `{1..3}`, `{01..10..2}`, `{a..e}`. Only unquoted braces and
//! commas count; a `{…}` with neither a top-level comma nor a valid
//! sequence stays literal and the search goes on with the next `{`
//! (checked against bash by `tests/lexer_vs_bash.rs`).

use super::Piece;

/// Most words one word may expand to; more is judged unknown (a real
/// command never needs it, and it bounds the checker's work).
pub const MAX_BRACE_WORDS: usize = 1024;

/// Expansion produced more than [`MAX_BRACE_WORDS`] words.
#[derive(Debug)]
pub struct TooMany;

/// Expand one word's pieces into the words bash would make.
pub fn expand<'w>(word: &[Piece<'w>]) -> Result<Vec<Vec<Piece<'w>>>, TooMany> {
    let mut out = Vec::new();
    expand_into(word, &mut out)?;
    Ok(out)
}

fn is_unquoted(p: &Piece<'_>, c: char) -> bool {
    matches!(p, Piece::Ch(x, false) if *x == c)
}

/// Whether the `{` at `open` is one bash never opens a list with: at the
/// start of the word (or after whitespace) and followed by `}` or
/// whitespace, as `find -exec … {} \;` writes it. `{}a,b}` stays literal,
/// while `x{}y,z}` expands.
fn find_placeholder(word: &[Piece<'_>], open: usize) -> bool {
    let blank = |p: Option<&Piece<'_>>| {
        p.is_some_and(|p| [' ', '\t', '\n'].iter().any(|&c| is_unquoted(p, c)))
    };
    let starts = open == 0 || blank(word.get(open - 1));
    let next = word.get(open + 1);
    starts && (next.is_some_and(|p| is_unquoted(p, '}')) || blank(next))
}

/// Index of the `}` closing the `{` at `open`, with the top-level commas.
/// As in bash, a `}` at the top level closes only once a comma or a `..`
/// has been seen; before that it is an ordinary character.
fn closing(word: &[Piece<'_>], open: usize) -> Option<(usize, Vec<usize>)> {
    let mut depth = 0usize;
    let mut commas = Vec::new();
    let mut seen_separator = false;
    for j in open + 1..word.len() {
        let p = &word[j];
        if is_unquoted(p, '{') {
            depth += 1;
        } else if is_unquoted(p, '}') {
            if depth == 0 {
                if seen_separator {
                    return Some((j, commas));
                }
            } else {
                depth -= 1;
            }
        } else if depth == 0 && is_unquoted(p, ',') {
            commas.push(j);
            seen_separator = true;
        } else if depth == 0
            && is_unquoted(p, '.')
            && word.get(j + 1).is_some_and(|q| is_unquoted(q, '.'))
            && !word.get(j + 2).is_some_and(|q| is_unquoted(q, '}'))
        {
            seen_separator = true;
        }
    }
    None
}

fn expand_into<'w>(word: &[Piece<'w>], out: &mut Vec<Vec<Piece<'w>>>) -> Result<(), TooMany> {
    if out.len() > MAX_BRACE_WORDS {
        return Err(TooMany);
    }
    for open in 0..word.len() {
        if !is_unquoted(&word[open], '{') || find_placeholder(word, open) {
            continue;
        }
        let Some((close, commas)) = closing(word, open) else {
            continue;
        };
        let (prefix, suffix) = (&word[..open], &word[close + 1..]);
        let alternatives: Vec<Vec<Piece<'w>>> = if commas.is_empty() {
            match sequence(&word[open + 1..close]) {
                // Plain text, as bash makes it (a tilde before it still
                // expands: `~+:{1..3}`); any other character a letter
                // range passes (`{Z..a}`) stays literal.
                Some(seq) => seq
                    .into_iter()
                    .map(|s| {
                        s.chars()
                            .map(|c| Piece::Ch(c, !(c.is_ascii_alphanumeric() || c == '-')))
                            .collect()
                    })
                    .collect(),
                None => continue,
            }
        } else {
            let mut alts = Vec::new();
            let mut start = open + 1;
            for end in commas.into_iter().chain(std::iter::once(close)) {
                alts.push(word[start..end].to_vec());
                start = end + 1;
            }
            alts
        };
        if alternatives.len() > MAX_BRACE_WORDS {
            return Err(TooMany);
        }
        for alt in alternatives {
            let mut w = Vec::with_capacity(prefix.len() + alt.len() + suffix.len());
            w.extend_from_slice(prefix);
            w.extend(alt);
            w.extend_from_slice(suffix);
            expand_into(&w, out)?;
        }
        return Ok(());
    }
    out.push(word.to_vec());
    Ok(())
}

/// `{x..y[..step]}` with integers or single letters; `None` if not one.
fn sequence(inner: &[Piece<'_>]) -> Option<Vec<String>> {
    let mut text = String::new();
    for p in inner {
        match p {
            Piece::Ch(c, false) => text.push(*c),
            _ => return None,
        }
    }
    let parts: Vec<&str> = text.split("..").collect();
    let (a, b, step) = match parts.as_slice() {
        [a, b] => (*a, *b, None),
        [a, b, s] => (*a, *b, Some(s.parse::<i64>().ok()?)),
        _ => return None,
    };
    let step = step.map_or(1, |s| s.unsigned_abs().max(1));
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        let count = x.abs_diff(y) / step + 1;
        if count > MAX_BRACE_WORDS as u64 {
            // Too many to list: the caller judges the word unknown.
            return Some(vec![String::new(); MAX_BRACE_WORDS + 1]);
        }
        let padded = |s: &str| {
            let digits = s.trim_start_matches('-');
            digits.len() > 1 && digits.starts_with('0')
        };
        let width = if padded(a) || padded(b) {
            a.len().max(b.len())
        } else {
            0
        };
        let mut out = Vec::new();
        let mut v = x;
        for _ in 0..count {
            out.push(if width > 0 {
                if v < 0 {
                    format!("-{:0w$}", v.unsigned_abs(), w = width - 1)
                } else {
                    format!("{v:0width$}")
                }
            } else {
                v.to_string()
            });
            v = if x <= y {
                v + step as i64
            } else {
                v - step as i64
            };
        }
        return Some(out);
    }
    let (mut ca, mut cb) = (a.chars(), b.chars());
    let (Some(x), None, Some(y), None) = (ca.next(), ca.next(), cb.next(), cb.next()) else {
        return None;
    };
    if !x.is_ascii_alphabetic() || !y.is_ascii_alphabetic() {
        return None;
    }
    let (lo, hi) = (x.min(y) as u8, x.max(y) as u8);
    let mut chars: Vec<char> = (lo..=hi).step_by(step as usize).map(char::from).collect();
    if x > y {
        chars = (lo..=hi)
            .rev()
            .step_by(step as usize)
            .map(char::from)
            .collect();
    }
    // A range across the punctuation between `Z` and `a` holds `\` and
    // quotes, which bash treats in ways not worth modelling: not known.
    if chars.iter().any(|c| !c.is_ascii_alphabetic()) {
        return Some(vec![String::new(); MAX_BRACE_WORDS + 1]);
    }
    Some(chars.into_iter().map(String::from).collect())
}
