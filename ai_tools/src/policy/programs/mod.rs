//! The allowlist of read-only programs, each with a real option model
//! (see [`opts`]). A program not listed here is never proven read-only;
//! an option a model does not know makes the proof abstain.

pub mod awk;
pub mod coreutils;
pub mod find;
pub mod git;
pub mod misc;
pub mod opts;
pub mod search;
pub mod sed;

use std::collections::HashMap;
use std::sync::OnceLock;

use opts::{Effect, Options, Parsed, Style};

/// How a program's argument is used, for the credential checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathRole {
    /// Not a path (a pattern, a format, a number, a message).
    NotPath,
    /// A path whose contents are read.
    Content,
    /// A path whose metadata (name, size, type) is read.
    Meta,
}

/// What a program's operands are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands {
    /// Never file names.
    NotPaths,
    /// Files whose contents are read.
    Content,
    /// Files whose metadata is read.
    Meta,
    /// A pattern or program first (unless an option supplied it), then
    /// files whose contents are read.
    PatternThenContent,
    /// The program takes none; any operand is not proven.
    Nothing,
}

/// Whether the program walks directory trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recursion {
    /// Never.
    Never,
    /// Always (find, du, tree, rg, fd).
    Always,
    /// When an option with [`Effect::Recursive`] is given (`grep -r`,
    /// `ls -R`).
    ByOption,
}

/// A directory walk the program would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    /// Where it starts, as written (after expansion).
    pub roots: Vec<String>,
    /// Does it read file contents (grep) or only names (find)?
    pub content: bool,
    /// Does it read hidden files?
    pub hidden: bool,
    /// Does it honour .gitignore and friends?
    pub ignore_files: bool,
    /// Does it follow symlinks inside the tree?
    pub follow: bool,
}

/// What the proof learns from a program's arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// Every argument or option value that is a path, with its role.
    pub paths: Vec<(String, PathRole)>,
    /// The operands that name files (a leading pattern left out).
    pub operands: Vec<String>,
    /// The directory walk, if the program recurses.
    pub walk: Option<Walk>,
    /// For git: where it starts looking for its repository (the `-C`
    /// directories joined, `.` for none). The repository found there
    /// brings its own configuration, which can name programs to run.
    pub repository: Option<String>,
}

/// A program-specific check after the generic one.
pub type Check = fn(&Parsed<'_>, &mut Judgement) -> Result<(), String>;

/// One program's model.
pub struct Model {
    /// Its options.
    pub opts: Options,
    /// What its operands are.
    pub operands: Operands,
    /// Whether it walks directories.
    pub recursion: Recursion,
    /// Anything the option list cannot say.
    pub check: Option<Check>,
}

/// A model as the family modules declare it.
pub struct Decl {
    /// The names the program is called by.
    pub names: &'static [&'static str],
    /// Its option list (see [`opts`]).
    pub opts: &'static str,
    /// How it parses its command line.
    pub style: Style,
    /// Its operands.
    pub operands: Operands,
    /// Whether it walks directories.
    pub recursion: Recursion,
    /// Extra checks.
    pub check: Option<Check>,
}

/// Every program family's declarations.
fn all_decls() -> impl Iterator<Item = &'static Decl> {
    coreutils::DECLS
        .iter()
        .chain(search::DECLS)
        .chain(misc::DECLS)
        .chain(sed::DECLS)
        .chain(awk::DECLS)
        .chain(git::DECLS)
}

fn registry() -> &'static HashMap<&'static str, Model> {
    static REGISTRY: OnceLock<HashMap<&'static str, Model>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut map = HashMap::new();
        let decls = all_decls();
        for d in decls {
            // A model whose list does not parse is left out (never
            // proven); the unit test below keeps every list parsing.
            let Ok(opts) = Options::new(d.opts, d.style) else {
                continue;
            };
            for name in d.names {
                map.insert(
                    *name,
                    Model {
                        opts: opts.clone(),
                        operands: d.operands,
                        recursion: d.recursion,
                        check: d.check,
                    },
                );
            }
        }
        map
    })
}

/// The model of a read-only program, or `None` if it is not on the list.
pub fn lookup(name: &str) -> Option<&'static Model> {
    registry().get(name)
}

/// Is this program on the read-only list?
pub fn is_known(name: &str) -> bool {
    lookup(name).is_some()
        || coreutils::FREE_ARGS.contains(&name)
        || coreutils::TEST.contains(&name)
        || CUSTOM.iter().any(|(n, _)| *n == name)
}

/// Programs with their own command-line grammar, judged by their own code.
type Custom = fn(&[String]) -> Result<Judgement, String>;

const CUSTOM: &[(&str, Custom)] = &[("find", find::judge), ("ps", misc::ps), ("xxd", misc::xxd)];

/// Judge a read-only program's arguments: `Err(why)` when they may change
/// something or the model cannot tell.
pub fn judge(name: &str, args: &[String]) -> Result<Judgement, String> {
    if name == "printf" && args.first().is_some_and(|a| a.starts_with("-v")) {
        return Err(
            "printf -v sets a shell variable, which can change what later commands run".into(),
        );
    }
    if coreutils::FREE_ARGS.contains(&name) {
        return Ok(Judgement::default());
    }
    if coreutils::TEST.contains(&name) {
        if name == "[" && args.last().map(String::as_str) != Some("]") {
            return Err("[ without its closing ]".into());
        }
        coreutils::test_names_plain(args)?;
        return Ok(Judgement {
            paths: args.iter().map(|a| (a.clone(), PathRole::Meta)).collect(),
            ..Judgement::default()
        });
    }
    if let Some((_, custom)) = CUSTOM.iter().find(|(n, _)| *n == name) {
        return custom(args);
    }
    let model = lookup(name).ok_or_else(|| format!("{name} is not a known read-only program"))?;
    let parsed = model.opts.parse(args)?;
    let mut j = Judgement::default();
    let mut pattern_given = false;
    let mut recursive = model.recursion == Recursion::Always;
    for (spec, values) in parsed.opts() {
        let name = spec.display();
        match spec.effect {
            Effect::Safe => {}
            Effect::Writes => return Err(format!("{name} writes a file")),
            Effect::Runs => return Err(format!("{name} runs a program or code")),
            Effect::Ask => return Err(format!("{name} is not proven read-only")),
            Effect::ReadsPath => j
                .paths
                .extend(values.iter().map(|v| (v.clone(), PathRole::Content))),
            Effect::MetaPath => j
                .paths
                .extend(values.iter().map(|v| (v.clone(), PathRole::Meta))),
            Effect::Recursive => recursive = true,
            Effect::Pattern => pattern_given = true,
            Effect::PatternFile => {
                pattern_given = true;
                j.paths
                    .extend(values.iter().map(|v| (v.clone(), PathRole::Content)));
            }
        }
    }
    let mut operands: Vec<&str> = parsed.operands().collect();
    let role = match model.operands {
        Operands::NotPaths => PathRole::NotPath,
        Operands::Content => PathRole::Content,
        Operands::Meta => PathRole::Meta,
        Operands::PatternThenContent => {
            if !pattern_given && !operands.is_empty() {
                operands.remove(0);
            }
            PathRole::Content
        }
        Operands::Nothing if operands.is_empty() => PathRole::NotPath,
        Operands::Nothing => return Err(format!("{name} takes no arguments here")),
    };
    j.paths
        .extend(operands.iter().map(|o| (o.to_string(), role)));
    j.operands = operands.iter().map(|o| o.to_string()).collect();
    if recursive && model.recursion != Recursion::Never {
        j.walk = Some(search::walk_over(&j, role == PathRole::Content));
    }
    if let Some(check) = model.check {
        check(&parsed, &mut j)?;
    }
    Ok(j)
}

/// The role of each path-like argument, for the floor's credential checks.
/// Where the model cannot parse the arguments, every argument counts as a
/// file read (the floor errs towards seeing a credential).
pub fn path_roles(name: &str, args: &[String]) -> Vec<(String, PathRole)> {
    match is_known(name).then(|| judge(name, args)) {
        Some(Ok(j)) => j.paths,
        _ => args
            .iter()
            .map(|a| (a.clone(), PathRole::Content))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_parses() {
        let decls = all_decls();
        for d in decls {
            if let Err(e) = Options::new(d.opts, d.style) {
                panic!("{:?}: {e}", d.names);
            }
        }
    }
}
