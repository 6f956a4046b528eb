//! Command lines for the differential test: a proptest strategy over
//! [`crate::vocab`], with the shell's ways of writing one word as another
//! (brace expansion, ANSI-C quoting, split quotes, backslashes, GNU
//! long-option abbreviations), wrappers, redirects, pipes and lists.

use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

use crate::vocab::{
    Program, DIRS, FILES, FILTERS, JOINS, NEW, PATTERNS, PROGRAMS, REDIRECTS, WRAPPERS,
};

/// `count` distinct command lines (first-seen order), from proptest's
/// deterministic runner: the same lines on every run and machine.
pub fn command_lines(count: usize) -> Vec<String> {
    let mut runner = TestRunner::deterministic();
    let strategy = command_line();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    // Duplicates are rare; the bound only guards against a strategy that
    // keeps repeating itself.
    for _ in 0..count * 4 {
        if out.len() == count {
            break;
        }
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let line = tree.current();
        if seen.insert(line.clone()) {
            out.push(line);
        }
    }
    out
}

/// One command line: a command, or two joined by a list operator or pipe.
pub fn command_line() -> impl Strategy<Value = String> {
    let one = simple_command().boxed();
    prop_oneof![
        6 => one.clone(),
        3 => (one.clone(), select(JOINS), one.clone()).prop_map(|(a, j, b)| format!("{a}{j}{b}")),
        2 => (one, select(FILTERS)).prop_map(|(a, f)| format!("{a} | {f}")),
    ]
    .prop_flat_map(fill)
}

/// A program with options and operands, maybe wrapped, maybe redirected.
fn simple_command() -> impl Strategy<Value = String> {
    (
        any::<Index>(),
        prop::collection::vec(any::<Index>(), 0..=3),
        prop::option::weighted(0.8, any::<Index>()),
        (any::<Index>(), any::<Mutation>()),
        prop::option::weighted(0.15, select(WRAPPERS)),
        prop::option::weighted(0.2, select(REDIRECTS)),
    )
        .prop_map(
            |(prog, opts, operand, (target, mutation), wrapper, redirect)| {
                let prog: &Program = prog.get(PROGRAMS);
                let mut opts: Vec<String> = if prog.opts.is_empty() {
                    Vec::new()
                } else {
                    opts.iter().map(|i| i.get(prog.opts).to_string()).collect()
                };
                if !opts.is_empty() {
                    let at = target.index(opts.len());
                    opts[at] = mutation.apply(&opts[at]);
                }
                let operand = match operand {
                    Some(i) if !prog.operands.is_empty() => Some(i.get(prog.operands).to_string()),
                    _ => None,
                };
                let mut words: Vec<String> = wrapper.map(str::to_string).into_iter().collect();
                words.push(prog.name.to_string());
                if prog.operands_first {
                    words.extend(operand);
                    words.extend(opts);
                } else {
                    words.extend(opts);
                    words.extend(operand);
                }
                words.extend(redirect.map(str::to_string));
                words.join(" ")
            },
        )
}

/// Another way to write one option word, as bash would still read it.
#[derive(Debug, Clone, Copy)]
enum Mutation {
    None,
    /// `{-delete,}`: brace expansion drops the empty alternative.
    Brace,
    /// `-{delete,}`
    BraceInside,
    /// `$'\55'delete`: octal escape for the dash.
    AnsiOctal,
    /// `$'\x2d'delete`
    AnsiHex,
    /// `$'\u002d'delete`
    AnsiUnicode,
    /// `-d''elete`
    SplitQuote,
    /// `"-delete"`
    DoubleQuote,
    /// `\-delete`
    Backslash,
    /// `--outp=x` for `--output=x`: a GNU unambiguous prefix of this length.
    Abbreviate(usize),
}

impl Arbitrary for Mutation {
    type Parameters = ();
    type Strategy = BoxedStrategy<Mutation>;

    fn arbitrary_with((): ()) -> Self::Strategy {
        prop_oneof![
            8 => Just(Mutation::None),
            1 => Just(Mutation::Brace),
            1 => Just(Mutation::BraceInside),
            1 => Just(Mutation::AnsiOctal),
            1 => Just(Mutation::AnsiHex),
            1 => Just(Mutation::AnsiUnicode),
            1 => Just(Mutation::SplitQuote),
            1 => Just(Mutation::DoubleQuote),
            1 => Just(Mutation::Backslash),
            3 => (2usize..6).prop_map(Mutation::Abbreviate),
        ]
        .boxed()
    }
}

impl Mutation {
    /// Rewrite `word` when it is one plain option word; else leave it.
    fn apply(self, word: &str) -> String {
        let plain = word.starts_with('-')
            && word.len() > 1
            && !word.contains([' ', '\'', '"', '\\', '$', '{', '}']);
        if !plain {
            return word.to_string();
        }
        let rest = &word[1..];
        match self {
            Mutation::None => word.to_string(),
            Mutation::Brace => format!("{{{word},}}"),
            Mutation::BraceInside => format!("-{{{rest},}}"),
            Mutation::AnsiOctal => format!("$'\\55'{rest}"),
            Mutation::AnsiHex => format!("$'\\x2d'{rest}"),
            Mutation::AnsiUnicode => format!("$'\\u002d'{rest}"),
            Mutation::SplitQuote => {
                let cut = word.char_indices().nth(2).map_or(word.len(), |(i, _)| i);
                format!("{}''{}", &word[..cut], &word[cut..])
            }
            Mutation::DoubleQuote => format!("\"{word}\""),
            Mutation::Backslash => format!("\\{word}"),
            Mutation::Abbreviate(keep) => abbreviate(word, keep),
        }
    }
}

/// `--output=x` with its name cut to `keep` letters (at least one fewer
/// than the name has), value kept.
fn abbreviate(word: &str, keep: usize) -> String {
    let Some(long) = word.strip_prefix("--") else {
        return word.to_string();
    };
    let (name, value) = match long.find('=') {
        Some(i) => (&long[..i], &long[i..]),
        None => (long, ""),
    };
    if name.len() <= keep + 1 {
        return word.to_string();
    }
    format!("--{}{value}", &name[..keep])
}

/// Replace each placeholder with a fixture path of its kind.
fn fill(template: String) -> BoxedStrategy<String> {
    let slots = ["{F}", "{D}", "{N}", "{P}"]
        .iter()
        .map(|s| template.matches(s).count())
        .sum::<usize>();
    prop::collection::vec(any::<Index>(), slots)
        .prop_map(move |picks| {
            let mut out = String::new();
            let mut rest = template.as_str();
            let mut picks = picks.into_iter();
            while let Some(at) = rest.find('{') {
                let pool: Option<&[&str]> = match rest.get(at..at + 3) {
                    Some("{F}") => Some(FILES),
                    Some("{D}") => Some(DIRS),
                    Some("{N}") => Some(NEW),
                    Some("{P}") => Some(PATTERNS),
                    _ => None,
                };
                match pool.and_then(|pool| Some((pool, picks.next()?))) {
                    Some((pool, pick)) => {
                        out.push_str(&rest[..at]);
                        out.push_str(pick.get::<&str>(pool));
                        rest = &rest[at + 3..];
                    }
                    None => {
                        out.push_str(&rest[..=at]);
                        rest = &rest[at + 1..];
                    }
                }
            }
            out.push_str(rest);
            out
        })
        .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_read_as_the_same_word() {
        assert_eq!(Mutation::Brace.apply("-delete"), "{-delete,}");
        assert_eq!(Mutation::AnsiOctal.apply("-delete"), "$'\\55'delete");
        assert_eq!(Mutation::SplitQuote.apply("-delete"), "-d''elete");
        assert_eq!(Mutation::Abbreviate(3).apply("--output=x"), "--out=x");
        assert_eq!(Mutation::Abbreviate(5).apply("--out=x"), "--out=x");
        assert_eq!(Mutation::Brace.apply("-exec rm {} +"), "-exec rm {} +");
    }

    #[test]
    fn generation_is_deterministic_and_fills_every_placeholder() {
        let a = command_lines(200);
        assert_eq!(a, command_lines(200));
        assert_eq!(a.len(), 200);
        for line in &a {
            for slot in ["{F}", "{D}", "{N}", "{P}"] {
                assert!(!line.contains(slot), "{line}");
            }
        }
    }
}
