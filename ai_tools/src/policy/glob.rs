//! Expanding simple globs against the filesystem, so the policy judges the
//! files a glob really names (`cat .e*` is `cat .env`).

use std::path::{Path, PathBuf};

use crate::policy::readonly::resolve_arg;

/// Directory entries looked at when expanding one glob; a bigger directory
/// is treated as "could match anything".
pub const MAX_GLOB_ENTRIES: usize = 10_000;

/// Does the text hold glob wildcards?
pub fn has_wildcards(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Translate one glob component to an anchored regex, or `None` for
/// brace lists and other forms this checker does not model.
fn component_regex(glob: &str) -> Option<regex::Regex> {
    if glob.contains(['{', '}']) {
        return None;
    }
    let mut re = String::from("^");
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            '[' => {
                let mut class = String::from("[");
                let mut closed = false;
                for (i, n) in chars.by_ref().enumerate() {
                    if n == ']' && i > 0 {
                        closed = true;
                        break;
                    }
                    match n {
                        '!' if i == 0 => class.push('^'),
                        '\\' | '[' => class.push_str(&regex::escape(&n.to_string())),
                        _ => class.push(n),
                    }
                }
                if !closed {
                    return None;
                }
                class.push(']');
                re.push_str(&class);
            }
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

/// The paths a glob names, when only its last component has wildcards.
/// `None` when the checker cannot know (wildcards in directories, brace
/// lists, huge or unreadable directories).
pub fn expand(arg: &str, cwd: &Path) -> Option<Vec<PathBuf>> {
    let (dir, last) = match arg.rsplit_once('/') {
        Some((d, l)) => (if d.is_empty() { "/" } else { d }, l),
        None => (".", arg),
    };
    if has_wildcards(dir) || dir.contains(['{', '}']) {
        return None;
    }
    let re = component_regex(last)?;
    let dir_path = resolve_arg(dir, cwd);
    let mut out = Vec::new();
    let entries = std::fs::read_dir(&dir_path).ok()?;
    for (n, entry) in entries.enumerate() {
        if n >= MAX_GLOB_ENTRIES {
            return None;
        }
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        // Without dotglob, a wildcard never matches a leading dot.
        if name.starts_with('.') && !last.starts_with('.') {
            continue;
        }
        if re.is_match(&name) {
            out.push(dir_path.join(name));
        }
    }
    Some(out)
}

/// Most words one brace expansion may produce before the checker stops
/// expanding (and judges the word as written).
pub const MAX_BRACE_WORDS: usize = 256;

/// Bash brace expansion: `a{b,c}d` → `abd`, `acd`, nested and repeated
/// groups included. Sequences like `{1..3}` and unbalanced braces are left
/// as written. The word itself comes first if expansion stops early.
pub fn brace_expand(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    expand_into(word, &mut out);
    if out.len() > MAX_BRACE_WORDS {
        out.truncate(MAX_BRACE_WORDS);
        out.insert(0, word.to_string());
    }
    out
}

fn expand_into(word: &str, out: &mut Vec<String>) {
    if out.len() > MAX_BRACE_WORDS {
        return;
    }
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    for (i, &(open, c)) in chars.iter().enumerate() {
        if c != '{' {
            continue;
        }
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for &(j, d) in &chars[i..] {
            match d {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(j);
                        break;
                    }
                }
                ',' if depth == 1 => commas.push(j),
                _ => {}
            }
        }
        let Some(close) = close else {
            return out.push(word.to_string());
        };
        if commas.is_empty() {
            continue;
        }
        let (prefix, suffix) = (&word[..open], &word[close + 1..]);
        let mut start = open + 1;
        for end in commas.into_iter().chain(std::iter::once(close)) {
            expand_into(&format!("{prefix}{}{suffix}", &word[start..end]), out);
            start = end + 1;
        }
        return;
    }
    out.push(word.to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_against_files() {
        let dir = tempfile::tempdir().unwrap();
        for n in [".env", "a.rs", "b.rs", "id_rsa"] {
            std::fs::write(dir.path().join(n), "").unwrap();
        }
        let names = |g: &str| -> Vec<String> {
            let mut v: Vec<String> = expand(g, dir.path())
                .unwrap()
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names("*.rs"), ["a.rs", "b.rs"]);
        assert_eq!(names(".e*"), [".env"]);
        assert_eq!(names("*"), ["a.rs", "b.rs", "id_rsa"]);
        assert_eq!(names("[ab].rs"), ["a.rs", "b.rs"]);
        assert_eq!(names("[!a].rs"), ["b.rs"]);
        assert!(expand("*/x", dir.path()).is_none());
        assert!(expand("{a,b}.rs", dir.path()).is_none());
    }

    #[test]
    fn braces() {
        assert_eq!(brace_expand("{.env,x}"), [".env", "x"]);
        assert_eq!(brace_expand("a{b,c{d,e}}f"), ["abf", "acdf", "acef"]);
        assert_eq!(brace_expand("{a,b}{1,2}"), ["a1", "a2", "b1", "b2"]);
        assert_eq!(brace_expand("x{1..3}"), ["x{1..3}"]);
        assert_eq!(brace_expand("{unclosed"), ["{unclosed"]);
        assert_eq!(brace_expand("${HOME}"), ["${HOME}"]);
        assert!(brace_expand(&"{a,b}".repeat(20)).len() <= MAX_BRACE_WORDS + 1);
    }
}
