//! Pathname expansion, bash's last expansion before quote removal: an
//! unquoted `*`, `?` or `[…]` is matched against the filesystem at check
//! time, so a file named `-delete` matched by `*` is seen as the option it
//! becomes. No match keeps the word literal (bash's default); a leading
//! `.` must be matched explicitly and `.`/`..` never are (globskipdots).

use std::path::{Path, PathBuf};

/// Directory entries read while expanding one word; past this the word
/// is judged unknown (a huge directory is no place for a quick proof).
pub const MAX_ENTRIES: usize = 20_000;

/// Paths one word may expand to; more is judged unknown.
pub const MAX_MATCHES: usize = 2_000;

/// One pattern character and whether it was quoted (quoted characters
/// only match themselves).
pub type PatChar = (char, bool);

/// Why a glob could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GlobError {
    /// Too many entries or matches to judge.
    TooBig,
    /// A file name that is not valid UTF-8.
    NotUtf8,
}

/// Does the pattern hold an unquoted wildcard?
pub fn has_wildcards(pat: &[PatChar]) -> bool {
    pat.iter().any(|&(c, q)| !q && matches!(c, '*' | '?' | '['))
}

/// Expand `pat` relative to `cwd`. `Ok(None)` when nothing matches (the
/// word stays as written), else the sorted matches as bash prints them.
pub fn expand(pat: &[PatChar], cwd: &Path) -> Result<Option<Vec<String>>, GlobError> {
    let comps: Vec<&[PatChar]> = pat.split(|&(c, _)| c == '/').collect();
    let absolute = pat.first().is_some_and(|&(c, _)| c == '/');
    // (text as bash would print it, path on disk)
    let mut current: Vec<(String, PathBuf)> = vec![if absolute {
        (String::new(), PathBuf::from("/"))
    } else {
        (String::new(), cwd.to_path_buf())
    }];
    let mut entries = 0usize;
    let last = comps.len().saturating_sub(1);
    // Once a component had wildcards, bash joins what follows with one
    // slash however many were typed (`*//x` is `d/x`); before that the
    // typed prefix stays as it is (`d//*` is `d//x`).
    let mut globbed = false;
    for (i, comp) in comps.iter().enumerate() {
        let sep_after = |text: &str| {
            if i == 0 || (globbed && text.ends_with('/')) {
                ""
            } else {
                "/"
            }
        };
        if i == 0 && absolute {
            continue;
        }
        if comp.is_empty() {
            // `a//b` or a trailing `/`: keeps the slash, needs a directory.
            for (text, _) in &mut current {
                let sep = sep_after(text);
                text.push_str(sep);
            }
            current.retain(|(_, p)| i != last || p.is_dir());
            continue;
        }
        let mut next = Vec::new();
        if !has_wildcards(comp) {
            let name: String = comp.iter().map(|&(c, _)| c).collect();
            for (text, path) in &current {
                let p = path.join(&name);
                if p.symlink_metadata().is_ok() {
                    next.push((format!("{text}{}{name}", sep_after(text)), p));
                }
            }
        } else {
            for (text, path) in &current {
                let Ok(dir) = std::fs::read_dir(path) else {
                    continue;
                };
                let mut names = Vec::new();
                for entry in dir {
                    entries += 1;
                    if entries > MAX_ENTRIES {
                        return Err(GlobError::TooBig);
                    }
                    let Ok(entry) = entry else { continue };
                    let Ok(name) = entry.file_name().into_string() else {
                        return Err(GlobError::NotUtf8);
                    };
                    let is_dir_needed = i < last;
                    if matches(comp, &name) && (!is_dir_needed || entry.path().is_dir()) {
                        names.push(name);
                    }
                }
                names.sort();
                for name in names {
                    next.push((format!("{text}{}{name}", sep_after(text)), path.join(&name)));
                }
            }
            globbed = true;
        }
        if next.len() > MAX_MATCHES {
            return Err(GlobError::TooBig);
        }
        current = next;
        if current.is_empty() {
            return Ok(None);
        }
    }
    let mut out: Vec<String> = current.into_iter().map(|(t, _)| t).collect();
    out.sort();
    Ok(Some(out))
}

/// Does one pattern component match one file name?
pub fn matches(pat: &[PatChar], name: &str) -> bool {
    let name: Vec<char> = name.chars().collect();
    if name == ['.'] || name == ['.', '.'] {
        return false;
    }
    if name.first() == Some(&'.') && pat.first().map(|&(c, _)| c) != Some('.') {
        return false;
    }
    match_from(pat, &name)
}

fn match_from(pat: &[PatChar], name: &[char]) -> bool {
    let (mut p, mut n) = (0usize, 0usize);
    // Backtracking point for the last `*`.
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p < pat.len() {
            let (c, quoted) = pat[p];
            if !quoted && c == '*' {
                star = Some((p, n));
                p += 1;
                continue;
            }
            if n < name.len() {
                let step = if !quoted && c == '?' {
                    Some(1)
                } else if !quoted && c == '[' {
                    match class(&pat[p..], name[n]) {
                        Some((true, len)) => Some(len),
                        Some((false, _)) => None,
                        // An unclosed `[` is an ordinary character.
                        None => (name[n] == '[').then_some(1),
                    }
                } else {
                    (name[n] == c).then_some(1)
                };
                if let Some(len) = step {
                    p += len;
                    n += 1;
                    continue;
                }
            }
        } else if n == name.len() {
            return true;
        }
        match star {
            Some((sp, sn)) if sn < name.len() => {
                star = Some((sp, sn + 1));
                p = sp + 1;
                n = sn + 1;
            }
            _ => return false,
        }
    }
}

/// Match a bracket expression at the start of `pat` against `ch`:
/// `Some((matched, pattern length))`, or `None` if it is not closed.
fn class(pat: &[PatChar], ch: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(pat.get(i), Some(('!' | '^', false)));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let &(c, quoted) = pat.get(i)?;
        if c == ']' && !quoted && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if c == '[' && !quoted && matches!(pat.get(i + 1), Some((':', false))) {
            let rest: String = pat[i + 2..].iter().map(|&(c, _)| c).collect();
            if let Some(end) = rest.find(":]") {
                let name = &rest[..end];
                matched |= named_class(name, ch);
                i += 2 + name.chars().count() + 2;
                continue;
            }
        }
        if matches!(pat.get(i + 1), Some(('-', false)))
            && pat.get(i + 2).is_some_and(|&(d, q)| q || d != ']')
        {
            let hi = pat[i + 2].0;
            matched |= (c..=hi).contains(&ch);
            i += 3;
            continue;
        }
        matched |= c == ch;
        i += 1;
    }
}

fn named_class(name: &str, ch: char) -> bool {
    match name {
        "alpha" => ch.is_ascii_alphabetic(),
        "digit" => ch.is_ascii_digit(),
        "alnum" => ch.is_ascii_alphanumeric(),
        "upper" => ch.is_ascii_uppercase(),
        "lower" => ch.is_ascii_lowercase(),
        "space" => ch.is_ascii_whitespace() || ch == '\x0b',
        "blank" => ch == ' ' || ch == '\t',
        "punct" => ch.is_ascii_punctuation(),
        "xdigit" => ch.is_ascii_hexdigit(),
        "cntrl" => ch.is_ascii_control(),
        "print" => (' '..='~').contains(&ch),
        "graph" => ('!'..='~').contains(&ch),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(s: &str) -> Vec<PatChar> {
        s.chars().map(|c| (c, false)).collect()
    }

    #[test]
    fn matching() {
        assert!(matches(&pat("*.rs"), "a.rs"));
        assert!(!matches(&pat("*"), ".env"));
        assert!(matches(&pat(".*"), ".env"));
        assert!(!matches(&pat(".*"), ".."));
        assert!(matches(&pat("[!a]x"), "bx"));
        assert!(matches(&pat("[[:digit:]]"), "7"));
        assert!(matches(&pat("a[]]b"), "a]b"));
        assert!(matches(&pat("a[x"), "a[x"));
        assert!(matches(&pat("-*"), "-delete"));
        assert!(!matches(&[('*', true)], "x"));
    }

    #[test]
    fn expands_with_dash_files_and_dirs() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for n in ["-delete", "a", "b.rs", ".env"] {
            std::fs::write(dir.path().join(n), "").unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::create_dir(dir.path().join("d")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("d/x.rs"), "").unwrap_or_else(|e| panic!("{e}"));
        let got = expand(&pat("*"), dir.path()).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            got,
            Some(vec![
                "-delete".into(),
                "a".into(),
                "b.rs".into(),
                "d".into()
            ])
        );
        let got = expand(&pat("*/*.rs"), dir.path()).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(got, Some(vec!["d/x.rs".into()]));
        assert_eq!(expand(&pat("*.none"), dir.path()), Ok(None));
    }
}
