//! Redaction of secret values from tool output, in every spelling a
//! command can easily turn one into: as written, reversed (`rev`), base64
//! (standard and URL-safe, wherever the value starts in the encoded
//! stream, and wrapped over lines as `base64` prints it), hex (`xxd -p`,
//! `od`-free `printf %x`, lower or upper case) and URL-encoded. The
//! spellings are computed once per set of values; scanning is one
//! automaton pass over the output.

use std::sync::{Arc, Mutex};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use base64::Engine as _;

/// Secret values shorter than this are not redacted from output: a value
/// like `1` or `yes` would mangle everything.
pub const MIN_REDACT_LEN: usize = 8;

/// What a match is replaced with.
const REDACTED: &str = "[redacted]";

/// Spellings longer than this may be wrapped over lines (`base64` wraps at
/// 76 columns); their first [`WRAP_PROBE`] characters are looked for to
/// decide whether a scan with line breaks removed is worth it.
const WRAPPABLE: usize = 60;

/// Length of the probe for a wrapped spelling: long enough to be unique.
const WRAP_PROBE: usize = 16;

/// How many secret sets [`redact_cached`] keeps built: koi has a few
/// (the tool runner's, the web search key's, the memory writer's).
const CACHE_SETS: usize = 4;

/// The spellings of a set of secret values, built once.
pub struct Redactor {
    matcher: Option<AhoCorasick>,
    probes: Option<AhoCorasick>,
    /// One replacement per spelling, as the automaton wants them.
    replacements: Vec<&'static str>,
}

impl Redactor {
    /// Build the spellings of every value at least [`MIN_REDACT_LEN`]
    /// characters long (shorter ones would mangle ordinary text).
    pub fn new(values: &[String]) -> Redactor {
        let mut needles: Vec<String> = values
            .iter()
            .filter(|v| v.chars().count() >= MIN_REDACT_LEN)
            .flat_map(|v| spellings(v))
            .filter(|s| s.len() >= MIN_REDACT_LEN)
            .collect();
        needles.sort();
        needles.dedup();
        let probes: Vec<&str> = needles
            .iter()
            .filter(|n| n.len() > WRAPPABLE && n.is_ascii())
            .map(|n| &n[..WRAP_PROBE])
            .collect();
        let build = |patterns: &[&str]| {
            (!patterns.is_empty())
                .then(|| {
                    AhoCorasickBuilder::new()
                        .match_kind(MatchKind::LeftmostLongest)
                        .build(patterns)
                        .ok()
                })
                .flatten()
        };
        let all: Vec<&str> = needles.iter().map(String::as_str).collect();
        Redactor {
            matcher: build(&all),
            probes: build(&probes),
            replacements: vec![REDACTED; all.len()],
        }
    }

    /// `text` with every spelling of every value replaced by `[redacted]`.
    pub fn redact(&self, text: &str) -> String {
        let Some(matcher) = &self.matcher else {
            return text.to_string();
        };
        let mut out = matcher.replace_all(text, &self.replacements);
        let wrapped = self.probes.as_ref().is_some_and(|p| p.is_match(&out)) && out.contains('\n');
        if wrapped {
            out = redact_across_lines(&out, matcher);
        }
        out
    }
}

/// Find spellings in `text` with line breaks removed, and replace each
/// one's whole span in the original (line breaks inside it included).
fn redact_across_lines(text: &str, matcher: &AhoCorasick) -> String {
    // Byte offsets in `text` of each byte kept in `squeezed`.
    let mut at = Vec::with_capacity(text.len());
    let mut squeezed = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if c != '\n' && c != '\r' {
            squeezed.push(c);
            at.extend(i..i + c.len_utf8());
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for m in matcher.find_iter(&squeezed) {
        let (start, end) = (at[m.start()], at[m.end() - 1] + 1);
        out.push_str(&text[from..start]);
        out.push_str(REDACTED);
        from = end;
    }
    out.push_str(&text[from..]);
    out
}

/// Every spelling of one value that output is scanned for.
fn spellings(v: &str) -> Vec<String> {
    let bytes = v.as_bytes();
    let mut out = vec![v.to_string(), v.chars().rev().collect()];
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    out.push(hex.to_ascii_uppercase());
    out.push(hex);
    let url = url_encoded(bytes);
    out.push(url.to_ascii_lowercase());
    out.push(url);
    // A value starting 0, 1 or 2 bytes into a 3-byte group: the groups
    // holding only its bytes encode the same whatever surrounds it.
    for skip in 0..3.min(bytes.len()) {
        let rest = &bytes[skip..];
        let whole = &rest[..rest.len() / 3 * 3];
        out.push(STANDARD_NO_PAD.encode(whole));
        out.push(URL_SAFE_NO_PAD.encode(whole));
    }
    out
}

/// Percent-encoding of everything but RFC 3986's unreserved characters.
fn url_encoded(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// [`Redactor::redact`] for callers that hold the values, not a redactor:
/// the redactor for the same values is built once and kept.
pub fn redact_cached(text: &str, values: &[String]) -> String {
    type Cache = Vec<(Vec<String>, Arc<Redactor>)>;
    static CACHE: Mutex<Cache> = Mutex::new(Vec::new());
    if values.is_empty() {
        return text.to_string();
    }
    let redactor = {
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        match cache.iter().find(|(v, _)| v.as_slice() == values) {
            Some((_, r)) => Arc::clone(r),
            None => {
                let r = Arc::new(Redactor::new(values));
                if cache.len() >= CACHE_SETS {
                    cache.remove(0);
                }
                cache.push((values.to_vec(), Arc::clone(&r)));
                r
            }
        }
    };
    redactor.redact(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-ant-api03-Zx9kQ2mN7pL4vB8cR1tY6wE3/+uT";

    fn redactor() -> Redactor {
        Redactor::new(&[KEY.to_string(), "short".to_string()])
    }

    fn hidden(out: &str) -> bool {
        out.contains(REDACTED)
    }

    #[test]
    fn every_spelling_is_redacted() {
        let r = redactor();
        let rev: String = KEY.chars().rev().collect();
        let hex: String = KEY.bytes().map(|b| format!("{b:02x}")).collect();
        let mut texts = vec![
            format!("key={KEY}"),
            format!("{rev}\n"),
            format!("x {hex} y"),
            format!("x {} y", hex.to_ascii_uppercase()),
            format!("?k={}", url_encoded(KEY.as_bytes())),
            format!("?k={}", url_encoded(KEY.as_bytes()).to_ascii_lowercase()),
        ];
        // Encoded after 0, 1 and 2 bytes of other text, both alphabets.
        for prefix in ["", "a", "ab", "KOI_API_KEY="] {
            let raw = format!("{prefix}{KEY}\n");
            texts.push(STANDARD_NO_PAD.encode(&raw));
            texts.push(URL_SAFE_NO_PAD.encode(&raw));
            texts.push(base64::engine::general_purpose::STANDARD.encode(&raw));
        }
        for t in &texts {
            let out = r.redact(t);
            assert!(hidden(&out), "{t} -> {out}");
            assert!(!out.contains(KEY), "{out}");
        }
    }

    #[test]
    fn base64_wrapped_over_lines_is_redacted_whole() {
        let long = format!("{KEY}{KEY}-and-some-more-of-it");
        let r = Redactor::new(std::slice::from_ref(&long));
        let encoded = base64::engine::general_purpose::STANDARD.encode(&long);
        let wrapped: String = encoded
            .as_bytes()
            .chunks(20)
            .map(|c| format!("{}\n", String::from_utf8_lossy(c)))
            .collect();
        let out = r.redact(&format!("before\n{wrapped}after\n"));
        assert!(out.starts_with("before\n[redacted]"), "{out}");
        assert!(out.ends_with("after\n"), "{out}");
        assert!(out.len() < 40, "{out}");
    }

    #[test]
    fn short_values_and_ordinary_text_are_left_alone() {
        let r = redactor();
        for t in [
            "short",
            "a short note",
            "sk-ant is a prefix",
            "",
            "ünïcode ✓",
        ] {
            assert_eq!(r.redact(t), t);
        }
        assert_eq!(Redactor::new(&[]).redact("x"), "x");
    }

    #[test]
    fn the_cache_answers_like_a_fresh_redactor() {
        let values = vec![KEY.to_string()];
        let t = format!("a {} b", STANDARD_NO_PAD.encode(KEY));
        assert_eq!(redact_cached(&t, &values), redactor().redact(&t));
        assert!(redact_cached(&t, &values).starts_with("a [redacted]"));
        assert_eq!(redact_cached("plain", &values), "plain");
    }
}
