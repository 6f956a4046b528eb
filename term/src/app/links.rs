//! What on screen can be opened or copied: OSC 8 hyperlinks and plain URLs
//! for Ctrl+click (Cmd+click), and for hints mode also paths, git hashes
//! and IPv4 addresses. Pure text scanning; which schemes may open is
//! decided here too, in one place.

/// The schemes a click may hand to the system opener. Anything else
/// (`javascript:`, `data:`, custom handlers) could run code or reach
/// programs the user never meant to start.
const OPENABLE: &[&str] = &["http", "https", "mailto", "file"];

/// Where a URL may start in plain text.
const URL_STARTS: &[&str] = &["https://", "http://", "mailto:", "file://"];

/// What a run of text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    Url,
    Path,
    GitHash,
    Ip,
}

/// A target found on one row: columns `start..end` (in characters of the
/// row's text, one per cell) and the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub kind: TargetKind,
}

/// Whether `uri` may be opened: one of [`OPENABLE`]'s schemes, and no
/// whitespace or control characters to confuse the opener.
pub fn may_open(uri: &str) -> bool {
    let Some((scheme, rest)) = uri.split_once(':') else {
        return false;
    };
    !rest.is_empty()
        && OPENABLE.contains(&scheme.to_ascii_lowercase().as_str())
        && !uri.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn is_url_char(c: char) -> bool {
    !c.is_whitespace() && !c.is_control() && !"<>\"'`{}|\\^".contains(c)
}

/// Trailing punctuation that ends a sentence rather than the URL; a
/// closing bracket stays when the URL opened one.
fn trim_end(text: &str) -> &str {
    let mut end = text.len();
    loop {
        let head = &text[..end];
        let Some(last) = head.chars().last() else {
            return head;
        };
        let unbalanced = |open: char, close: char| {
            last == close && head.matches(open).count() < head.matches(close).count()
        };
        if ".,;:!?".contains(last) || unbalanced('(', ')') || unbalanced('[', ']') {
            end -= last.len_utf8();
        } else {
            return head;
        }
    }
}

/// Plain URLs on a row of text.
pub fn urls(row: &[char]) -> Vec<Target> {
    let text: String = row.iter().collect();
    let mut out = Vec::new();
    let mut from = 0;
    while from < text.len() {
        let next = URL_STARTS
            .iter()
            .filter_map(|s| text[from..].find(s).map(|i| from + i))
            .min();
        let Some(start) = next else { break };
        let len = text[start..]
            .char_indices()
            .find(|(_, c)| !is_url_char(*c))
            .map_or(text.len() - start, |(i, _)| i);
        let url = trim_end(&text[start..start + len]);
        let start_col = text[..start].chars().count();
        let chars = url.chars().count();
        if URL_STARTS.iter().all(|s| url.len() > s.len()) {
            out.push(Target {
                start: start_col,
                end: start_col + chars,
                text: url.to_owned(),
                kind: TargetKind::Url,
            });
        }
        from = start + len.max(1);
    }
    out
}

fn is_hash(word: &str) -> bool {
    (7..=40).contains(&word.len())
        && word
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_alphabetic())
}

fn is_ipv4(word: &str) -> bool {
    let parts: Vec<&str> = word.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 3 && p.parse::<u8>().is_ok())
}

fn is_path(word: &str) -> bool {
    let has_part = |w: &str| w.split('/').any(|p| !p.is_empty() && p != "." && p != "..");
    word.contains('/') && has_part(word) && !word.contains("//")
        || (word.starts_with("~/") && word.len() > 2)
}

/// Everything hints mode labels on a row: URLs first, then the other
/// kinds in the words left over.
pub fn targets(row: &[char]) -> Vec<Target> {
    let mut out = urls(row);
    let mut col = 0;
    while col < row.len() {
        if row[col].is_whitespace() {
            col += 1;
            continue;
        }
        let start = col;
        while col < row.len() && !row[col].is_whitespace() {
            col += 1;
        }
        if out.iter().any(|t| t.start < col && start < t.end) {
            continue;
        }
        let raw: String = row[start..col].iter().collect();
        // Quotes, brackets and a sentence's punctuation are not the target.
        let lead = raw.len() - raw.trim_start_matches(['(', '[', '"', '\'', '<']).len();
        let word = trim_end(raw[lead..].trim_end_matches([')', ']', '"', '\'', '>']));
        let kind = if is_ipv4(word) {
            TargetKind::Ip
        } else if is_hash(word) {
            TargetKind::GitHash
        } else if is_path(word) {
            TargetKind::Path
        } else {
            continue;
        };
        let first = start + raw[..lead].chars().count();
        out.push(Target {
            start: first,
            end: first + word.chars().count(),
            text: word.to_owned(),
            kind,
        });
    }
    out.sort_by_key(|t| t.start);
    out
}

/// Labels for `n` targets: one letter each while they fit, two otherwise,
/// from keys under the fingers first.
pub fn labels(n: usize) -> Vec<String> {
    const KEYS: &[u8] = b"asdfjklghqwertyuiopzxcvbnm";
    if n <= KEYS.len() {
        return KEYS[..n]
            .iter()
            .map(|&k| char::from(k).to_string())
            .collect();
    }
    KEYS.iter()
        .flat_map(|&a| {
            KEYS.iter()
                .map(move |&b| format!("{}{}", char::from(a), char::from(b)))
        })
        .take(n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn only_web_mail_and_file_links_open() {
        assert!(may_open("https://example.com/a?b=c"));
        assert!(may_open("HTTP://example.com"));
        assert!(may_open("mailto:someone@example.com"));
        assert!(may_open("file:///etc/hosts"));
        assert!(!may_open("javascript:alert(1)"));
        assert!(!may_open("data:text/html,<b>x</b>"));
        assert!(!may_open("ssh://host"));
        assert!(!may_open("https://exa mple.com"));
        assert!(!may_open("https:"));
        assert!(!may_open("no scheme"));
    }

    #[test]
    fn urls_are_found_and_sentence_punctuation_trimmed() {
        let found = urls(&chars(
            "see https://a.io/x(1). and (http://b.io/y), mailto:z@c.io",
        ));
        let texts: Vec<&str> = found.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(
            texts,
            ["https://a.io/x(1)", "http://b.io/y", "mailto:z@c.io"]
        );
        assert_eq!((found[0].start, found[0].end), (4, 21));
        assert!(urls(&chars("just https:// alone")).is_empty());
    }

    #[test]
    fn hints_find_paths_hashes_and_addresses() {
        let row = chars("commit 3f2a9c1d in ./src/main.rs from 10.0.0.255 at ~/x, https://k.io");
        let found = targets(&row);
        let kinds: Vec<(TargetKind, &str)> =
            found.iter().map(|t| (t.kind, t.text.as_str())).collect();
        assert_eq!(
            kinds,
            [
                (TargetKind::GitHash, "3f2a9c1d"),
                (TargetKind::Path, "./src/main.rs"),
                (TargetKind::Ip, "10.0.0.255"),
                (TargetKind::Path, "~/x"),
                (TargetKind::Url, "https://k.io"),
            ]
        );
        assert!(targets(&chars("deadbeef is a word, 999.1.1.1 too, and / alone")).is_empty());
    }

    #[test]
    fn labels_are_unique_and_grow_to_two_letters() {
        assert_eq!(labels(3), ["a", "s", "d"]);
        let many = labels(30);
        assert_eq!(many.len(), 30);
        assert!(many.iter().all(|l| l.len() == 2));
        let mut sorted = many;
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 30);
    }
}
