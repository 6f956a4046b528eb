//! The one fold for look-alike characters, shared by the policy (credential
//! names, commands spelled to dodge a check) and the untrusted-data wrapper
//! (a closing tag spelled in look-alikes). It reads Unicode's own data, not
//! a hand list: NFKC (fullwidth forms, mathematical and circled letters,
//! ligatures) and the UTS #39 confusables skeleton (Cyrillic and Greek
//! look-alikes, small capitals and hooked letters that have one, `‹` `›`
//! `⁄` `∕` …). Two small additions cover what the confusables table leaves
//! without an ASCII prototype: angle brackets whose prototype is `❬`/`❭`,
//! and guillemets and precedes signs, which read as `<`/`>` in markup.

use std::cell::RefCell;
use std::collections::HashMap;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;
use unicode_security::confusable_detection::skeleton;

/// Characters that render as nothing or reorder text: a command holding
/// one is never proven read-only, and the summary shows them escaped.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
        | '\u{E0000}'..='\u{E007F}')
}

/// What one character reads as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// Renders as nothing (zero-width, bidi controls, variation selectors).
    Invisible,
    /// ASCII text it imitates (one character, or a few: `ﬁ`, `“`).
    Ascii(String),
    /// No ASCII reading: itself.
    Itself,
}

/// Most characters a thread remembers readings for (a cache, not a list:
/// the skeleton is computed again when it is full).
const CACHE_CHARS: usize = 4096;

/// How `c` reads. `strip_marks` also drops combining marks from the
/// skeleton (`ɗ` is `d` with a hook): right for markup, where any
/// accented look-alike of a letter reads as the letter, too broad for
/// file names (`café` is not `cafe`).
pub fn reading(c: char, strip_marks: bool) -> Reading {
    if c.is_ascii() {
        return Reading::Ascii(c.to_string());
    }
    if is_invisible(c) {
        return Reading::Invisible;
    }
    thread_local! {
        static CACHE: RefCell<HashMap<(char, bool), Reading>> = RefCell::new(HashMap::new());
    }
    if let Some(r) = CACHE.with(|m| m.borrow().get(&(c, strip_marks)).cloned()) {
        return r;
    }
    let r = compute(c, strip_marks);
    CACHE.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() < CACHE_CHARS {
            m.insert((c, strip_marks), r.clone());
        }
    });
    r
}

fn compute(c: char, strip_marks: bool) -> Reading {
    let ascii = |s: String| (!s.is_empty() && s.is_ascii()).then_some(s);
    let one = c.to_string();
    if let Some(s) = ascii(one.nfkc().collect()) {
        return Reading::Ascii(s);
    }
    let skel = |s: &str| -> String {
        skeleton(s)
            .filter(|&k| !(strip_marks && is_combining_mark(k)))
            .collect()
    };
    let sk = skel(&one);
    if let Some(s) = ascii(sk.clone()) {
        // Capital I's prototype is `l`; a capital whose lower case reads
        // as `i` (Cyrillic І, Greek Ι) is an `I`.
        if s == "l" && skel(&c.to_lowercase().to_string()) == "i" {
            return Reading::Ascii("I".into());
        }
        return Reading::Ascii(s);
    }
    match sk.as_str() {
        "❬" | "«" | "≺" => Reading::Ascii("<".into()),
        "❭" | "»" | "≻" => Reading::Ascii(">".into()),
        _ => Reading::Itself,
    }
}

/// Does `c` imitate another character: an ASCII one, or one the
/// confusables data maps it to (`т` to `ᴛ`)? Accented letters that are
/// only themselves (`é`) do not.
pub fn is_lookalike(c: char) -> bool {
    if c.is_ascii() {
        return false;
    }
    match reading(c, false) {
        Reading::Invisible | Reading::Ascii(_) => true,
        Reading::Itself => {
            let one = c.to_string();
            skeleton(&one).ne(one.nfd())
        }
    }
}

/// `s` with look-alikes folded to the ASCII they imitate (case kept where
/// the data keeps it) and invisible characters dropped; anything else as
/// it is. For matching against names and patterns that must not be
/// dodged by spelling.
pub fn fold(s: &str) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match reading(c, false) {
            Reading::Invisible => {}
            Reading::Ascii(a) => out.push_str(&a),
            Reading::Itself => out.push(c),
        }
    }
    out
}

/// How markup reads `c`: `None` when invisible, else the text it
/// imitates, lower case (marks dropped from look-alikes), or `c` itself.
pub fn markup_reading(c: char) -> Option<String> {
    match reading(c, true) {
        Reading::Invisible => None,
        Reading::Ascii(a) => Some(a.to_ascii_lowercase()),
        Reading::Itself => Some(c.to_lowercase().collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markup(s: &str) -> String {
        s.chars().filter_map(markup_reading).collect()
    }

    #[test]
    fn tag_lookalikes_fold_to_ascii() {
        assert_eq!(markup("‹/untrusted‐data›"), "</untrusted-data>");
        assert_eq!(
            markup("＜／ＵＮＴＲＵＳＴＥＤ－ＤＡＴＡ＞"),
            "</untrusted-data>"
        );
        assert_eq!(
            markup("﹤/un\u{200d}trusted\u{2212}data﹥"),
            "</untrusted-data>"
        );
        assert_eq!(markup("<𝐮𝐧𝐭𝐫𝐮𝐬𝐭𝐞𝐝_𝒅𝒂𝒕𝒂>"), "<untrusted_data>");
        assert_eq!(markup("<ⓤⓝⓣⓡⓤⓢⓣⓔⓓ>"), "<untrusted>");
        assert_eq!(markup("〈/UNTRUSTED DATA〉"), "</untrusted data>");
        assert_eq!(markup("⟨⁄untrusted∕data⟩"), "</untrusted/data>");
        assert_eq!(markup("</untrusted-ɗata>"), "</untrusted-data>");
        assert_eq!(
            markup("</\u{3c5}ntrusted-d\u{430}t\u{430}>"),
            "</untrusted-data>"
        );
        assert_eq!(markup("«ꜱᴜ»"), "<su>");
    }

    #[test]
    fn policy_fold_keeps_case_and_accents() {
        assert_eq!(fold("саt .еnv"), "cat .env");
        assert_eq!(fold("ｒｍ －ｒｆ ／"), "rm -rf /");
        assert_eq!(fold("l\u{200b}s"), "ls");
        assert_eq!(fold("ІD_RSA"), "ID_RSA");
        assert_eq!(fold("café ✓ 文档"), "café ✓ 文档");
    }

    #[test]
    fn lookalikes_are_told_from_letters_that_are_only_themselves() {
        for c in ['а', 'е', 'ｒ', '𝐮', 'т', 'ɡ', '\u{2044}', '\u{200b}'] {
            assert!(is_lookalike(c), "{c:?}");
        }
        for c in ['a', 'é', 'ü', '文', '✓'] {
            assert!(!is_lookalike(c), "{c:?}");
        }
    }
}
