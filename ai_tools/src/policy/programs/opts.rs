//! A getopt-like option parser driven by a declared option list, so the
//! proof sees options the way the program will: clustered short flags
//! (`-rni`), attached values (`-ofile`, `-e1e`, `-n5`), `--opt=value` and
//! `--opt value`, GNU unambiguous long-option prefixes (`--out` is
//! `--output`), `--` ending options, and options after operands (GNU
//! permutation). An option the model does not know is an error: the proof
//! abstains rather than guess.
//!
//! Option lists are written compactly, one token per option:
//! `s,long=!w` is `-s`/`--long`, taking a required value, that writes.
//! `=` a required value, `?` an optional one (attached only), `+` two
//! values (jq's `--arg NAME VALUE`). After `!`, what the option does:
//! `w` writes, `x` runs code, `q` not provable otherwise, `p` its value is
//! a path read for content, `m` a path whose metadata is read, `R` makes
//! the program recurse, `P` supplies the pattern or program, `F` a
//! pattern or program read from a file (a path read for content).

use std::collections::HashMap;

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// A flag.
    No,
    /// A value, attached or in the next argument.
    Required,
    /// A value only when attached (`-iSUF`, `--opt=v`).
    Optional,
    /// Two values in the next two arguments.
    Two,
}

/// What an option does, for the proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Changes nothing.
    Safe,
    /// Writes a file.
    Writes,
    /// Runs a program or code.
    Runs,
    /// Not provable for another reason.
    Ask,
    /// Its value is a path whose contents are read.
    ReadsPath,
    /// Its value is a path whose metadata is read.
    MetaPath,
    /// Makes the program walk directories.
    Recursive,
    /// Supplies the pattern or program text (operands are then files).
    Pattern,
    /// Reads the pattern or program from the file it names.
    PatternFile,
}

/// One declared option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptSpec {
    /// The short letter, if any.
    pub short: Option<char>,
    /// The long name (without `--`), if any.
    pub long: Option<&'static str>,
    /// Its value.
    pub arg: Arg,
    /// What it does.
    pub effect: Effect,
}

impl OptSpec {
    /// Is this the option called `name` (long name or short letter)?
    pub fn is(&self, name: &str) -> bool {
        self.long == Some(name) || (name.chars().count() == 1 && self.short == name.chars().next())
    }

    /// How the option is written, for messages.
    pub fn display(&self) -> String {
        match (self.long, self.short) {
            (Some(l), _) => format!("--{l}"),
            (None, Some(s)) => format!("-{s}"),
            (None, None) => "?".into(),
        }
    }
}

/// How a program reads its command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Long options may be abbreviated to an unambiguous prefix (GNU
    /// getopt_long). Where a program is not known to, any inexact long
    /// option is unknown.
    pub prefixes: bool,
    /// Options may follow operands (GNU permutation).
    pub permute: bool,
    /// `-5` is a number (head, tail, nice): a count, not a flag.
    pub numeric: bool,
    /// A short option's value is always the next argument, and the
    /// letters after it in the cluster are more options (tree's own
    /// parser: `-Lo 2 out` is `-L 2 -o out`, never `-L o`).
    pub detached: bool,
}

/// GNU getopt_long programs.
pub const GNU: Style = Style {
    prefixes: true,
    permute: true,
    numeric: false,
    detached: false,
};

/// Programs that stop at the first operand and take no abbreviations.
pub const POSIX: Style = Style {
    prefixes: false,
    permute: false,
    numeric: false,
    detached: false,
};

/// Programs with their own parser that allows options anywhere but only
/// exact long names (ripgrep, fd, git's parse-options is treated so too).
pub const EXACT: Style = Style {
    prefixes: false,
    permute: true,
    numeric: false,
    detached: false,
};

/// A program's option list, parsed from its compact description.
#[derive(Debug, Clone)]
pub struct Options {
    specs: Vec<OptSpec>,
    shorts: HashMap<char, usize>,
    /// The style.
    pub style: Style,
}

/// One parsed argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item<'o> {
    /// An option and its value(s).
    Opt(&'o OptSpec, Vec<String>),
    /// An operand.
    Operand(String),
    /// A `-5` count, for programs whose style allows it.
    Number(String),
}

/// A parsed command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed<'o> {
    /// The arguments in order.
    pub items: Vec<Item<'o>>,
}

impl<'o> Parsed<'o> {
    /// The options with their values.
    pub fn opts(&self) -> impl Iterator<Item = (&'o OptSpec, &[String])> + '_ {
        self.items.iter().filter_map(|i| match i {
            Item::Opt(s, v) => Some((*s, v.as_slice())),
            Item::Operand(_) | Item::Number(_) => None,
        })
    }

    /// The operands in order.
    pub fn operands(&self) -> impl Iterator<Item = &str> + '_ {
        self.items.iter().filter_map(|i| match i {
            Item::Operand(s) => Some(s.as_str()),
            Item::Opt(..) | Item::Number(_) => None,
        })
    }

    /// Was the option called `name` given?
    pub fn has(&self, name: &str) -> bool {
        self.opts().any(|(s, _)| s.is(name))
    }

    /// The values given to the option called `name`.
    pub fn values(&self, name: &str) -> Vec<&str> {
        self.opts()
            .filter(|(s, _)| s.is(name))
            .flat_map(|(_, v)| v.iter().map(String::as_str))
            .collect()
    }

    /// Is any option with this effect present?
    pub fn any_effect(&self, effect: Effect) -> bool {
        self.opts().any(|(s, _)| s.effect == effect)
    }
}

/// A declared option list that does not parse (a bug in a model).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad option token {0:?}")]
pub struct BadSpec(pub &'static str);

impl Options {
    /// Parse a compact option list (see the module docs).
    pub fn new(list: &'static str, style: Style) -> Result<Options, BadSpec> {
        let mut specs = Vec::new();
        for token in list.split_whitespace() {
            let (body, effect) = match token.split_once('!') {
                Some((b, e)) => (b, effect_of(e).ok_or(BadSpec(token))?),
                None => (token, Effect::Safe),
            };
            let (names, arg) = match body.char_indices().last() {
                Some((i, '=')) if i > 0 => (&body[..i], Arg::Required),
                Some((i, '?')) if i > 0 => (&body[..i], Arg::Optional),
                Some((i, '+')) if i > 0 => (&body[..i], Arg::Two),
                _ => (body, Arg::No),
            };
            let (short, long) = match names.split_once(',') {
                Some((s, l)) => (Some(single(s).ok_or(BadSpec(token))?), Some(l)),
                None => match single(names) {
                    Some(c) => (Some(c), None),
                    None => (None, Some(names)),
                },
            };
            if long.is_some_and(str::is_empty) {
                return Err(BadSpec(token));
            }
            specs.push(OptSpec {
                short,
                long,
                arg,
                effect,
            });
        }
        let shorts = specs
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.short.map(|c| (c, i)))
            .collect();
        Ok(Options {
            specs,
            shorts,
            style,
        })
    }

    /// The declared options.
    pub fn specs(&self) -> &[OptSpec] {
        &self.specs
    }

    /// Resolve a long option name as the program would.
    pub fn long(&self, name: &str) -> Result<&OptSpec, String> {
        if let Some(s) = self.specs.iter().find(|s| s.long == Some(name)) {
            return Ok(s);
        }
        if !self.style.prefixes || name.is_empty() {
            return Err(format!("--{name} is not an option the checker knows"));
        }
        let candidates: Vec<&OptSpec> = self
            .specs
            .iter()
            .filter(|s| s.long.is_some_and(|l| l.starts_with(name)))
            .collect();
        match candidates.as_slice() {
            [] => Err(format!("--{name} is not an option the checker knows")),
            [one] => Ok(one),
            [first, rest @ ..]
                if rest
                    .iter()
                    .all(|s| s.arg == first.arg && s.effect == first.effect) =>
            {
                Ok(first)
            }
            many => Err(format!(
                "--{name} is ambiguous ({})",
                many.iter()
                    .map(|s| s.display())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Parse `args` (the words after the program name).
    pub fn parse<'o>(&'o self, args: &[String]) -> Result<Parsed<'o>, String> {
        let mut out = Parsed::default();
        let mut i = 0;
        let mut only_operands = false;
        // GNU getopt stops permuting when POSIXLY_CORRECT is set: options
        // after an operand are then operands.
        let permute = self.style.permute && std::env::var_os("POSIXLY_CORRECT").is_none();
        while i < args.len() {
            let a = &args[i];
            i += 1;
            if only_operands || a == "-" || !a.starts_with('-') {
                out.items.push(Item::Operand(a.clone()));
                if !permute {
                    only_operands = true;
                }
                continue;
            }
            if a == "--" {
                only_operands = true;
                continue;
            }
            if let Some(body) = a.strip_prefix("--") {
                let (name, attached) = match body.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_string())),
                    None => (body, None),
                };
                let spec = self.long(name)?;
                let values = match (spec.arg, attached) {
                    (Arg::No, Some(_)) => {
                        return Err(format!("--{name} does not take a value"));
                    }
                    (Arg::No, None) | (Arg::Optional, None) => Vec::new(),
                    (Arg::Optional | Arg::Required, Some(v)) => vec![v],
                    (Arg::Required, None) => vec![take(args, &mut i, a)?],
                    (Arg::Two, first) => {
                        let first = match first {
                            Some(v) => v,
                            None => take(args, &mut i, a)?,
                        };
                        vec![first, take(args, &mut i, a)?]
                    }
                };
                out.items.push(Item::Opt(spec, values));
                continue;
            }
            let cluster: Vec<char> = a[1..].chars().collect();
            if self.style.numeric && cluster.iter().all(char::is_ascii_digit) {
                out.items.push(Item::Number(a.clone()));
                continue;
            }
            let mut j = 0;
            while j < cluster.len() {
                let c = cluster[j];
                j += 1;
                let spec = self
                    .shorts
                    .get(&c)
                    .map(|&k| &self.specs[k])
                    .ok_or_else(|| format!("-{c} is not an option the checker knows"))?;
                if self.style.detached {
                    let values = match spec.arg {
                        Arg::No | Arg::Optional => Vec::new(),
                        Arg::Required => vec![take(args, &mut i, a)?],
                        Arg::Two => vec![take(args, &mut i, a)?, take(args, &mut i, a)?],
                    };
                    out.items.push(Item::Opt(spec, values));
                    continue;
                }
                let rest: String = cluster[j..].iter().collect();
                match spec.arg {
                    Arg::No => out.items.push(Item::Opt(spec, Vec::new())),
                    Arg::Optional => {
                        let v = if rest.is_empty() {
                            Vec::new()
                        } else {
                            vec![rest]
                        };
                        out.items.push(Item::Opt(spec, v));
                        break;
                    }
                    Arg::Required => {
                        let v = if rest.is_empty() {
                            take(args, &mut i, a)?
                        } else {
                            rest
                        };
                        out.items.push(Item::Opt(spec, vec![v]));
                        break;
                    }
                    Arg::Two => {
                        let first = if rest.is_empty() {
                            take(args, &mut i, a)?
                        } else {
                            rest
                        };
                        let second = take(args, &mut i, a)?;
                        out.items.push(Item::Opt(spec, vec![first, second]));
                        break;
                    }
                }
            }
        }
        Ok(out)
    }
}

fn take(args: &[String], i: &mut usize, opt: &str) -> Result<String, String> {
    let v = args
        .get(*i)
        .cloned()
        .ok_or_else(|| format!("{opt} is missing its value"))?;
    *i += 1;
    Ok(v)
}

fn single(s: &str) -> Option<char> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

fn effect_of(code: &str) -> Option<Effect> {
    Some(match code {
        "w" => Effect::Writes,
        "x" => Effect::Runs,
        "q" => Effect::Ask,
        "p" => Effect::ReadsPath,
        "m" => Effect::MetaPath,
        "R" => Effect::Recursive,
        "P" => Effect::Pattern,
        "F" => Effect::PatternFile,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    fn opts() -> Options {
        Options::new(
            "o,output=!w outline n,lines= r,recursive i,in-place?!w e,expression=!P color? arg+ s",
            GNU,
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn long_prefixes_and_ambiguity() {
        let o = opts();
        assert_eq!(o.long("output").map(|s| s.effect), Ok(Effect::Writes));
        assert_eq!(o.long("outp").map(|s| s.effect), Ok(Effect::Writes));
        assert!(o.long("out").unwrap_err().contains("ambiguous"));
        assert_eq!(o.long("outl").map(|s| s.long), Ok(Some("outline")));
        assert!(o.long("nope").is_err());
        let exact = Options::new("output=!w", EXACT).unwrap_or_else(|e| panic!("{e}"));
        assert!(exact.long("outp").is_err());
    }

    #[test]
    fn values_clusters_and_dashdash() {
        let o = opts();
        let p = o
            .parse(&v(&["-rn5", "-ofile", "x", "--lines", "3", "--outp=f2"]))
            .unwrap();
        let names: Vec<(String, Vec<String>)> =
            p.opts().map(|(s, v)| (s.display(), v.to_vec())).collect();
        assert_eq!(
            names,
            [
                ("--recursive".to_string(), vec![]),
                ("--lines".to_string(), vec!["5".to_string()]),
                ("--output".to_string(), vec!["file".to_string()]),
                ("--lines".to_string(), vec!["3".to_string()]),
                ("--output".to_string(), vec!["f2".to_string()]),
            ]
        );
        assert_eq!(p.operands().collect::<Vec<_>>(), ["x"]);
        // `-ie` is -i with the suffix "e", not -i and -e.
        let p = o.parse(&v(&["-sie"])).unwrap();
        assert_eq!(p.values("in-place"), ["e"]);
        let p = o.parse(&v(&["--", "-o", "x"])).unwrap();
        assert_eq!(p.operands().collect::<Vec<_>>(), ["-o", "x"]);
        assert!(!p.has("output"));
        let p = o.parse(&v(&["--arg", "a", "b", "c"])).unwrap();
        assert_eq!(p.values("arg"), ["a", "b"]);
        assert!(o.parse(&v(&["-q"])).is_err());
        assert!(o.parse(&v(&["--recursive=x"])).is_err());
        assert_eq!(o.parse(&v(&["--color"])).unwrap().values("color").len(), 0);
    }

    #[test]
    fn detached_values_leave_the_cluster_going() {
        let style = Style {
            detached: true,
            ..EXACT
        };
        let o = Options::new("a L= o=!w", style).unwrap_or_else(|e| panic!("{e}"));
        let p = o.parse(&v(&["-aLo", "2", "out", "d"])).unwrap();
        assert_eq!(p.values("L"), ["2"]);
        assert_eq!(p.values("o"), ["out"]);
        assert_eq!(p.operands().collect::<Vec<_>>(), ["d"]);
        // `-L2` takes the next argument and then reads `2` as a flag.
        assert!(o.parse(&v(&["-L2", "d"])).is_err());
    }

    #[test]
    fn permutation() {
        let o = opts();
        let p = o.parse(&v(&["a", "-o", "f"])).unwrap();
        assert!(p.has("output"));
        let posix = Options::new("o=!w", POSIX).unwrap_or_else(|e| panic!("{e}"));
        let p = posix.parse(&v(&["a", "-o", "f"])).unwrap();
        assert!(!p.has("o"));
        assert_eq!(p.operands().count(), 3);
    }
}
