//! Unicode tricks: look-alike letters, invisible and bidi characters, and
//! making control characters visible in what the user is asked to approve.

/// Characters that render as nothing or reorder text: a command holding
/// one is never proven read-only, and the summary shows them escaped.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
        | '\u{E0000}'..='\u{E007F}')
}

/// The ASCII character a look-alike imitates, if it is one we know.
pub fn confusable(c: char) -> Option<char> {
    let mapped = match c {
        // Fullwidth ASCII block maps one to one.
        '\u{FF01}'..='\u{FF5E}' => return char::from_u32(c as u32 - 0xFF01 + 0x21),
        '\u{3000}' | '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' => ' ',
        // Cyrillic.
        'а' => 'a',
        'в' => 'b',
        'е' | 'ё' => 'e',
        'һ' => 'h',
        'і' | 'ӏ' => 'i',
        'ј' => 'j',
        'к' => 'k',
        'м' => 'm',
        'н' => 'h',
        'о' => 'o',
        'р' => 'p',
        'с' => 'c',
        'т' => 't',
        'у' => 'y',
        'х' => 'x',
        'ѕ' => 's',
        'ԁ' => 'd',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'А' => 'A',
        'В' => 'B',
        'Е' => 'E',
        'К' => 'K',
        'М' => 'M',
        'Н' => 'H',
        'О' => 'O',
        'Р' => 'P',
        'С' => 'C',
        'Т' => 'T',
        'Х' => 'X',
        'Ѕ' => 'S',
        'І' => 'I',
        'Ј' => 'J',
        // Greek.
        'α' => 'a',
        'ε' => 'e',
        'ι' => 'i',
        'κ' => 'k',
        'ν' => 'v',
        'ο' => 'o',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Η' => 'H',
        'Ι' => 'I',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Χ' => 'X',
        'Υ' => 'Y',
        'Ζ' => 'Z',
        // Latin extras and punctuation.
        'ı' => 'i',
        'ɡ' => 'g',
        'ℓ' => 'l',
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE63}' | '\u{2043}' => '-',
        '\u{2044}' | '\u{2215}' | '\u{29F8}' => '/',
        '\u{29F9}' => '\\',
        '\u{2024}' | '\u{FE52}' => '.',
        '\u{02DC}' | '\u{223C}' => '~',
        '\u{2018}' | '\u{2019}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{2033}' => '"',
        '\u{037E}' => ';',
        '\u{2223}' | '\u{01C0}' => '|',
        _ => return None,
    };
    Some(mapped)
}

/// Does the text hold a look-alike or an invisible character?
pub fn has_tricky_chars(s: &str) -> bool {
    s.chars()
        .any(|c| is_invisible(c) || confusable(c).is_some())
}

/// Fold look-alikes to ASCII and drop invisible characters, for matching
/// against patterns that must not be dodged by spelling (credentials,
/// catastrophic targets).
pub fn fold(s: &str) -> String {
    s.chars()
        .filter(|c| !is_invisible(*c))
        .map(|c| confusable(c).unwrap_or(c))
        .collect()
}

/// The exact text with control, invisible and look-alike characters made
/// visible (`\n`, `\x1b`, `\u{200b}`), for approval prompts.
pub fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                if (c as u32) < 0x100 {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                } else {
                    out.push_str(&format!("\\u{{{:x}}}", c as u32));
                }
            }
            c if is_invisible(c) || confusable(c).is_some() => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_lookalikes() {
        assert_eq!(fold("саt .еnv"), "cat .env");
        assert_eq!(fold("ｒｍ －ｒｆ ／"), "rm -rf /");
        assert_eq!(fold("l\u{200b}s"), "ls");
    }

    #[test]
    fn makes_visible() {
        assert_eq!(visible("ls\x1b[2J\n"), "ls\\x1b[2J\\n");
        assert_eq!(visible("сat"), "\\u{441}at");
        assert_eq!(visible("文档.md"), "文档.md");
    }
}
