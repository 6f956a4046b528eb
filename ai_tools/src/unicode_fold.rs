//! Folding for markup that must not be spelled around: the tags koi wraps
//! untrusted content in. Builds on [`crate::policy::unicode`] (look-alike
//! letters, invisible characters) and adds the look-alikes of the markup
//! punctuation itself (`‹`, `﹤`, `〈` for `<`; dash and slash variants)
//! and the mathematical letter styles, which a model reads as letters.

use crate::policy::unicode::{confusable, is_invisible};

/// Start of Unicode's Mathematical Alphanumeric Symbols letters: 13
/// styles (bold, italic, script, …) of A–Z then a–z, 52 code points each.
const MATH_LETTERS_START: u32 = 0x1D400;
/// Last code point of those 13 alphabets.
const MATH_LETTERS_END: u32 = 0x1D6A3;

/// The ASCII markup character `c` imitates, for the characters tags are
/// made of, beyond what [`confusable`] knows.
fn markup_lookalike(c: char) -> Option<char> {
    Some(match c {
        '\u{2039}' | '\u{FE64}' | '\u{3008}' | '\u{2329}' | '\u{27E8}' | '\u{276C}'
        | '\u{276E}' | '\u{02C2}' | '\u{1438}' | '\u{00AB}' | '\u{227A}' => '<',
        '\u{203A}' | '\u{FE65}' | '\u{3009}' | '\u{232A}' | '\u{27E9}' | '\u{276D}'
        | '\u{276F}' | '\u{02C3}' | '\u{1433}' | '\u{00BB}' | '\u{227B}' => '>',
        '\u{2571}' | '\u{27CB}' | '\u{3033}' | '\u{1735}' | '\u{2CC6}' | '\u{0338}' => '/',
        '\u{FE58}' | '\u{2E3A}' | '\u{2E3B}' | '\u{2796}' | '\u{02D7}' | '\u{1806}'
        | '\u{30FC}' | '\u{2E17}' | '\u{FE31}' | '\u{FE32}' => '-',
        '\u{FE4D}' | '\u{FE4E}' | '\u{FE4F}' | '\u{2017}' | '\u{02CD}' => '_',
        '\u{201E}' | '\u{201F}' | '\u{2036}' | '\u{275D}' | '\u{275E}' | '\u{301D}'
        | '\u{301E}' | '\u{301F}' => '"',
        '\u{24B6}'..='\u{24CF}' => char::from_u32(c as u32 - 0x24B6 + u32::from(b'a'))?,
        '\u{24D0}'..='\u{24E9}' => char::from_u32(c as u32 - 0x24D0 + u32::from(b'a'))?,
        _ => {
            let code = c as u32;
            if !(MATH_LETTERS_START..=MATH_LETTERS_END).contains(&code) {
                return None;
            }
            let i = (code - MATH_LETTERS_START) % 52;
            let base = if i < 26 { b'a' } else { b'a' - 26 };
            char::from_u32(u32::from(base) + i)?
        }
    })
}

/// `c` as markup reads it: `None` for an invisible character (it is
/// dropped), else the ASCII character it imitates, lower case; other
/// characters come back as they are (lower-cased if ASCII).
pub fn fold_markup_char(c: char) -> Option<char> {
    if is_invisible(c) {
        return None;
    }
    let folded = markup_lookalike(c).or_else(|| confusable(c)).unwrap_or(c);
    Some(folded.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(s: &str) -> String {
        s.chars().filter_map(fold_markup_char).collect()
    }

    #[test]
    fn tag_lookalikes_fold_to_ascii() {
        assert_eq!(fold("‹/untrusted‐data›"), "</untrusted-data>");
        assert_eq!(
            fold("＜／ＵＮＴＲＵＳＴＥＤ－ＤＡＴＡ＞"),
            "</untrusted-data>"
        );
        assert_eq!(
            fold("﹤/un\u{200d}trusted\u{2212}data﹥"),
            "</untrusted-data>"
        );
        assert_eq!(fold("<𝐮𝐧𝐭𝐫𝐮𝐬𝐭𝐞𝐝_𝒅𝒂𝒕𝒂>"), "<untrusted_data>");
        assert_eq!(fold("<ⓤⓝⓣⓡⓤⓢⓣⓔⓓ>"), "<untrusted>");
        assert_eq!(fold("〈/UNTRUSTED—DATA〉"), "</untrusted-data>");
    }

    #[test]
    fn other_text_keeps_its_characters() {
        assert_eq!(fold("文档 ✓ é"), "文档 ✓ é");
    }
}
