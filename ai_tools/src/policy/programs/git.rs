//! `git`: global options, then one of the read-only subcommands, each
//! with its own option model. Options that run a program (`--ext-diff`,
//! `--textconv`, `-c`, `--exec-path`, pagers), write a file (`--output`)
//! or change configuration make the proof abstain, as does any option the
//! model does not list. git's option parsers are treated as exact (an
//! abbreviation is unknown, so it asks).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::opts::{Options, Parsed, Style, EXACT, POSIX};
use super::{Decl, Judgement, Operands, PathRole, Recursion};

/// Options before the subcommand (git.c `handle_options`).
const GLOBAL_OPTS: &str = "C=!m c=!q config-env=!q exec-path?!q html-path man-path info-path \
    p,paginate!q P,no-pager no-replace-objects no-lazy-fetch no-optional-locks no-advice bare \
    git-dir=!q work-tree=!q namespace=!q literal-pathspecs glob-pathspecs noglob-pathspecs \
    icase-pathspecs list-cmds= attr-source=";

/// Options every diff-producing command takes (diff-options).
const DIFF_OPTS: &str = "p u patch s no-patch U= unified= output=!w output-indicator-new= \
    output-indicator-old= output-indicator-context= raw patch-with-raw t indent-heuristic \
    no-indent-heuristic minimal patience histogram anchored= diff-algorithm= stat? \
    stat-width= stat-name-width= stat-count= compact-summary numstat shortstat X dirstat? \
    cumulative dirstat-by-file? summary patch-with-stat z name-only name-status \
    submodule? color? no-color color-moved? no-color-moved color-moved-ws= \
    no-color-moved-ws word-diff? word-diff-regex= color-words? no-renames rename-empty \
    no-rename-empty check ws-error-highlight= full-index binary abbrev? B break-rewrites? \
    M find-renames? C find-copies? find-copies-harder D irreversible-delete l= \
    diff-filter= S= G= find-object= pickaxe-all pickaxe-regex O= skip-to= rotate-to= R \
    relative? no-relative a text ignore-cr-at-eol ignore-space-at-eol b \
    ignore-space-change w ignore-all-space ignore-blank-lines I= ignore-matching-lines= \
    inter-hunk-context= W function-context exit-code quiet ext-diff!x no-ext-diff \
    textconv!x no-textconv ignore-submodules? src-prefix= dst-prefix= no-prefix \
    default-prefix line-prefix= ita-invisible-in-index ita-visible-in-index";

/// Commit-walking options (rev-list-options) shared by log, show,
/// shortlog and rev-list.
const REV_OPTS: &str = "n= max-count= skip= since= after= since-as-filter= until= before= \
    author= committer= grep-reflog= grep= all-match invert-grep i regexp-ignore-case \
    basic-regexp E extended-regexp F fixed-strings P perl-regexp remove-empty merges \
    no-merges min-parents= max-parents= no-min-parents no-max-parents first-parent \
    exclude-first-parent-only not all branches? tags? remotes? glob= exclude= \
    exclude-hidden= reflog alternate-refs single-worktree ignore-missing bisect stdin \
    cherry-mark cherry-pick left-only right-only cherry walk-reflogs g merge boundary \
    simplify-by-decoration full-history dense sparse simplify-merges ancestry-path? \
    show-pulls date-order author-date-order topo-order reverse no-walk? do-walk \
    format= pretty? abbrev-commit no-abbrev-commit oneline encoding= expand-tabs? \
    no-expand-tabs notes? no-notes show-notes-by-default show-notes? standard-notes \
    no-standard-notes show-signature!q relative-date date= parents children left-right \
    graph show-linear-break? cc c m diff-merges= no-diff-merges combined-all-paths \
    decorate? no-decorate decorate-refs= decorate-refs-exclude= clear-decorations \
    source mailmap no-mailmap use-mailmap no-use-mailmap full-diff log-size L= follow \
    count objects objects-edge unpacked header timestamp";

/// Commands with diff and commit-walking options.
const LOG_LIKE: &[&str] = &["log", "show", "whatchanged", "reflog"];

/// Style for subcommands: exact long names, options anywhere, `-3`
/// meaning a count.
const SUB: Style = Style {
    numeric: true,
    ..EXACT
};

/// The git model (its own judge; the option list here is the globals).
pub const DECLS: &[Decl] = &[Decl {
    names: &["git"],
    opts: GLOBAL_OPTS,
    style: POSIX,
    operands: Operands::NotPaths,
    recursion: Recursion::Never,
    check: Some(git_check),
}];

/// A subcommand's own options, and what its operands are.
fn sub_opts(sub: &str) -> Option<(String, PathRole)> {
    let own = match sub {
        "status" => {
            "s short b branch porcelain? long v verbose u untracked-files? \
            ignore-submodules? ignored? z column? no-column ahead-behind no-ahead-behind \
            renames no-renames find-renames? show-stash"
        }
        "log" | "whatchanged" | "reflog" => "",
        "show" => "",
        "shortlog" => "e email w? group= s summary n numbered c committer",
        "rev-list" => "",
        "diff" | "diff-tree" | "diff-files" | "diff-index" => {
            "cached staged no-index merge-base \
            r root 1 2 3 base ours theirs 0 stdin no-commit-id always m"
        }
        "rev-parse" => {
            "abbrev-ref? short? verify quiet q show-toplevel show-prefix show-cdup \
            git-dir git-common-dir absolute-git-dir is-inside-work-tree is-inside-git-dir \
            is-bare-repository is-shallow-repository symbolic symbolic-full-name all \
            branches? tags? remotes? glob= since= until= default= sq sq-quote local-env-vars \
            path-format= show-superproject-working-tree shared-index-path \
            show-object-format? show-ref-format git-path= resolve-git-dir= end-of-options \
            prefix= not disambiguate= exclude= flags no-flags revs-only no-revs \
            keep-dashdash stop-at-non-option stuck-long"
        }
        "ls-files" => {
            "c cached d deleted m modified o others i ignored s stage u unmerged \
            k killed directory no-empty-directory eol z t v f full-name recurse-submodules \
            abbrev? x= exclude= X=!p exclude-from=!p exclude-per-directory= \
            exclude-standard error-unmatch with-tree= deduplicate sparse format= debug"
        }
        "ls-tree" => {
            "d r t l long z name-only name-status object-only full-name full-tree \
            abbrev? format="
        }
        "cat-file" => {
            "t s e p textconv!x filters!x batch? batch-check? batch-command? \
            batch-all-objects buffer unordered follow-symlinks allow-unknown-type \
            use-mailmap no-use-mailmap mailmap no-mailmap Z"
        }
        "blame" | "annotate" => {
            "L= l t S=!p reverse= p porcelain line-porcelain incremental \
            root show-stats score-debug f show-name n show-number s e show-email w abbrev= \
            c date= progress no-progress M? C? ignore-rev= ignore-revs-file=!p \
            contents=!p color-lines color-by-age minimal first-parent b"
        }
        "describe" => {
            "all tags contains abbrev= candidates= exact-match debug long match= \
            exclude= always first-parent dirty? broken?"
        }
        "merge-base" => "a all octopus independent is-ancestor fork-point",
        "name-rev" => {
            "tags refs= exclude= all stdin annotate-stdin name-only no-undefined \
            always"
        }
        "count-objects" => "v verbose H human-readable",
        "grep" => {
            "cached untracked no-index no-exclude-standard exclude-standard \
            recurse-submodules a text textconv!x no-textconv i ignore-case I max-depth= r \
            recursive no-recursive w word-regexp v invert-match h H full-name E \
            extended-regexp G basic-regexp P perl-regexp F fixed-strings n line-number column \
            l files-with-matches name-only L files-without-match O?!x \
            open-files-in-pager?!x z null o only-matching c count color? no-color break \
            heading p show-function W function-context A= B= C= threads= f=!F e=!P and or \
            not all-match q quiet"
        }
        "show-ref" => {
            "head branches tags d dereference s hash? abbrev? verify exists q quiet \
            exclude-existing?"
        }
        "for-each-ref" => {
            "count= shell perl python tcl sort= format= color? points-at= \
            merged? no-merged? contains? no-contains? ignore-case omit-empty exclude= stdin"
        }
        "check-ignore" => "q quiet v verbose stdin z n non-matching no-index",
        "check-attr" => "a all cached stdin z source=",
        "version" => "build-options",
        "cherry" => "v abbrev?",
        "branch" => {
            "a all r remotes l list v vv verbose contains? no-contains? merged? \
            no-merged? points-at= sort= format= color? no-color column? no-column abbrev= \
            no-abbrev show-current i ignore-case omit-empty"
        }
        "tag" => {
            "l list n? sort= format= color? column? no-column contains? no-contains? \
            merged? no-merged? points-at= i ignore-case omit-empty"
        }
        "remote" => "v verbose n",
        "config" => {
            "get get-all get-regexp get-urlmatch l list show-origin show-scope \
            name-only z null type= bool int path bool-or-int expiry-date default= includes \
            no-includes global system local worktree f=!p file=!p blob= get-color \
            get-colorbool"
        }
        "stash" | "worktree" | "notes" => "porcelain v verbose z",
        _ => return None,
    };
    // The shared lists come first: a subcommand's own short letters
    // (shortlog's -n is --numbered) override theirs.
    let mut list = String::new();
    if LOG_LIKE.contains(&sub) || sub == "shortlog" || sub == "rev-list" || sub == "stash" {
        list.push_str(REV_OPTS);
        list.push(' ');
    }
    if LOG_LIKE.contains(&sub) || sub.starts_with("diff") || sub == "stash" {
        list.push_str(DIFF_OPTS);
        list.push(' ');
    }
    list.push_str(own);
    Some((list, PathRole::Meta))
}

/// The subcommand models, built once.
fn sub_model(sub: &str) -> Result<(&'static Options, PathRole), String> {
    static MODELS: OnceLock<HashMap<&'static str, (Options, PathRole)>> = OnceLock::new();
    let models = MODELS.get_or_init(|| {
        let mut map = HashMap::new();
        for name in SUBCOMMANDS {
            if let Some((list, role)) = sub_opts(name) {
                // Built once per process from constants: leaking it gives
                // the option list the lifetime the parser wants.
                let list: &'static str = Box::leak(list.into_boxed_str());
                if let Ok(opts) = Options::new(list, SUB) {
                    map.insert(*name, (opts, role));
                }
            }
        }
        map
    });
    models
        .get(sub)
        .map(|(o, r)| (o, *r))
        .ok_or_else(|| format!("git {sub} is not a read-only subcommand"))
}

/// Every subcommand with a model.
const SUBCOMMANDS: &[&str] = &[
    "status",
    "log",
    "whatchanged",
    "reflog",
    "show",
    "shortlog",
    "rev-list",
    "diff",
    "diff-tree",
    "diff-files",
    "diff-index",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "cat-file",
    "blame",
    "annotate",
    "describe",
    "merge-base",
    "name-rev",
    "count-objects",
    "grep",
    "show-ref",
    "for-each-ref",
    "check-ignore",
    "check-attr",
    "version",
    "cherry",
    "branch",
    "tag",
    "remote",
    "config",
    "stash",
    "worktree",
    "notes",
];

fn git_check(p: &Parsed<'_>, j: &mut Judgement) -> Result<(), String> {
    // The global -C directory is a path read for metadata; each one is
    // taken relative to the one before, as git does.
    let dirs = p.values("C");
    j.paths = dirs
        .iter()
        .map(|d| (d.to_string(), PathRole::Meta))
        .collect();
    let mut at = std::path::PathBuf::from(".");
    for d in dirs.iter().filter(|d| !d.is_empty()) {
        at.push(d);
    }
    j.repository = Some(at.to_string_lossy().into_owned());
    let mut operands = p.operands();
    let Some(sub) = operands.next() else {
        return Ok(());
    };
    let rest: Vec<String> = operands.map(String::from).collect();
    if sub == "help" {
        return Err("git help may start a viewer".into());
    }
    let (opts, role) = sub_model(sub)?;
    let parsed = opts.parse(&rest).map_err(|e| format!("git {sub}: {e}"))?;
    for (spec, values) in parsed.opts() {
        use super::opts::Effect;
        match spec.effect {
            Effect::Writes => return Err(format!("git {sub} {} writes a file", spec.display())),
            Effect::Runs => return Err(format!("git {sub} {} runs a program", spec.display())),
            Effect::Ask => {
                return Err(format!(
                    "git {sub} {} is not proven read-only",
                    spec.display()
                ))
            }
            Effect::ReadsPath | Effect::PatternFile => j
                .paths
                .extend(values.iter().map(|v| (v.clone(), PathRole::Content))),
            Effect::MetaPath => j
                .paths
                .extend(values.iter().map(|v| (v.clone(), PathRole::Meta))),
            _ => {}
        }
        if spec.is("format") || spec.is("pretty") {
            if let Some(v) = values.iter().find(|v| verifies_signatures(v)) {
                return Err(format!(
                    "git {sub} {}={v} verifies signatures, which runs gpg (it writes its \
                     keyring and may start an agent)",
                    spec.display()
                ));
            }
        }
    }
    let ops: Vec<&str> = parsed.operands().collect();
    j.paths.extend(ops.iter().map(|o| (o.to_string(), role)));
    if sub == "grep" {
        j.walk = untracked_grep_walk(&parsed, &ops);
    }
    if let Some(walk) = no_index_walk(sub, &parsed, &ops, &rest) {
        // Whole files are printed: the operands are read for content.
        for (p, r) in j.paths.iter_mut() {
            if walk.roots.contains(p) {
                *r = PathRole::Content;
            }
        }
        j.walk = Some(walk);
    }
    subcommand_rules(sub, &parsed, &ops)?;
    first_word_rules(sub, &rest)?;
    // Everything after the global options is relative to where `-C` led:
    // `git -C ~ grep --no-index KEY` walks the home directory.
    if at != std::path::Path::new(".") {
        let from_c = |p: &str| at.join(p).to_string_lossy().into_owned();
        for (p, _) in j.paths.iter_mut().skip(dirs.len()) {
            *p = from_c(p);
        }
        if let Some(w) = &mut j.walk {
            for r in &mut w.roots {
                *r = from_c(r);
            }
        }
    }
    Ok(())
}

/// `git grep --no-index` and `--untracked` search files git does not
/// track, and neither honours `.gitignore` unless told to
/// (`--exclude-standard`; `--no-exclude-standard` searches ignored files
/// too): a recursive content read of the directory and of every path
/// given, where a gitignored `.env` is in reach.
fn untracked_grep_walk(p: &Parsed<'_>, ops: &[&str]) -> Option<super::Walk> {
    if !(p.has("no-index") || p.has("untracked") || p.has("no-exclude-standard")) {
        return None;
    }
    // Without -e/-f the first operand is the pattern.
    let skip = usize::from(!(p.has("e") || p.has("f")));
    let mut roots: Vec<String> = ops.iter().skip(skip).map(|o| o.to_string()).collect();
    // Pathspec magic (`:(exclude)x`, `:!x`) and globs are not followed:
    // the whole directory counts.
    if roots.is_empty()
        || roots
            .iter()
            .any(|r| r.starts_with(':') || r.contains(['*', '?', '[']))
    {
        roots.push(".".into());
    }
    Some(super::Walk {
        roots,
        content: true,
        hidden: true,
        ignore_files: false,
        follow: false,
    })
}

/// `git diff --no-index A B` prints every file under A and B, whole: a
/// recursive content read of both (`git diff --no-index ~ /tmp/empty`
/// prints `~/.ssh`). git implies `--no-index` when two paths lie outside
/// the repository or when there is no repository at all, `--` or not
/// (`git diff -- ~ /media`), so every form with two operands or a `--`
/// counts: each operand is a root (a revision names nothing on disk, and
/// the walk finds nothing there).
fn no_index_walk(sub: &str, p: &Parsed<'_>, ops: &[&str], rest: &[String]) -> Option<super::Walk> {
    let implied = ops.len() >= 2 || rest.iter().any(|a| a == "--");
    if sub != "diff" || !(p.has("no-index") || implied) || ops.is_empty() {
        return None;
    }
    Some(super::Walk {
        roots: ops.iter().map(|o| o.to_string()).collect(),
        content: true,
        hidden: true,
        ignore_files: false,
        follow: false,
    })
}

/// stash, notes and worktree pick their action from the word right after
/// them, before any option: `git stash -- list` and `git stash -p list`
/// are `git stash push`, which rewrites the working tree, though `list`
/// is their first operand.
fn first_word_rules(sub: &str, rest: &[String]) -> Result<(), String> {
    let reads: &[&str] = match sub {
        "stash" | "notes" => &["list", "show"],
        "worktree" => &["list"],
        _ => return Ok(()),
    };
    match rest.first() {
        Some(w) if reads.contains(&w.as_str()) => Ok(()),
        Some(w) => Err(format!(
            "git {sub} {w} is not one of its read-only actions ({}) given first",
            reads.join(", ")
        )),
        None => Err(format!(
            "git {sub} without an action changes the repository"
        )),
    }
}

/// A pretty format's `%G…` placeholders (and for-each-ref's
/// `%(signature…)`) check a signed commit's signature by running
/// `gpg.program`, as `--show-signature` does.
fn verifies_signatures(format: &str) -> bool {
    format.contains("%G") || format.contains("%(signature")
}

/// What the option list cannot say: which forms of branch, tag, remote,
/// config, stash, worktree, notes and reflog only read.
fn subcommand_rules(sub: &str, p: &Parsed<'_>, ops: &[&str]) -> Result<(), String> {
    let listing = || {
        [
            "l",
            "list",
            "contains",
            "no-contains",
            "merged",
            "no-merged",
            "points-at",
        ]
        .iter()
        .any(|o| p.has(o))
    };
    match sub {
        "branch" | "tag" if !ops.is_empty() && !listing() => {
            Err(format!("git {sub} with a name creates it"))
        }
        "remote" => match ops.first().copied() {
            None | Some("get-url") => Ok(()),
            // `show` asks the remote unless told not to (-n).
            Some("show") if p.has("n") => Ok(()),
            Some(other) => Err(format!("git remote {other} changes or contacts a remote")),
        },
        "config" => {
            let reads = [
                "get",
                "get-all",
                "get-regexp",
                "get-urlmatch",
                "l",
                "list",
                "get-color",
                "get-colorbool",
            ]
            .iter()
            .any(|o| p.has(o));
            let new_style = matches!(ops.first().copied(), Some("get" | "list"));
            // `git config user.name` (one name, no value) reads it.
            let one_name = ops.len() == 1 && ops[0].contains('.');
            if reads || new_style || one_name {
                Ok(())
            } else {
                Err("git config without --get/--list changes the configuration".into())
            }
        }
        "stash" | "notes" => match ops.first().copied() {
            Some("list" | "show") => Ok(()),
            _ => Err(format!(
                "git {sub} without list/show changes the repository"
            )),
        },
        "worktree" => match ops.first().copied() {
            Some("list") => Ok(()),
            _ => Err("git worktree without list changes the repository".into()),
        },
        "reflog" => match ops.first().copied() {
            Some("expire" | "delete" | "drop") => {
                Err("git reflog expire/delete rewrites history".into())
            }
            _ => Ok(()),
        },
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    fn judge(cmd: &str) -> Result<(), String> {
        let args: Vec<String> = cmd.split_whitespace().map(String::from).collect();
        super::super::judge("git", &args).map(|_| ())
    }

    #[test]
    fn every_subcommand_model_parses() {
        for sub in super::SUBCOMMANDS {
            assert!(super::sub_model(sub).is_ok(), "{sub}");
        }
    }

    #[test]
    fn read_only_forms() {
        for ok in [
            "status --short",
            "log --oneline -10",
            "log -3 --stat",
            "diff --stat HEAD~1",
            "show HEAD",
            "-C src status",
            "--no-pager log -p -3",
            "branch -a",
            "branch --list feat/*",
            "tag -l",
            "remote -v",
            "config --get user.name",
            "config --list",
            "config get user.name",
            "config user.email",
            "shortlog -sn",
            "stash list",
            "grep -n main",
            "rev-parse --show-toplevel",
            "blame src/main.rs",
        ] {
            assert!(judge(ok).is_ok(), "{ok}: {:?}", judge(ok));
        }
        for bad in [
            "commit -m x",
            "-c core.pager=x log",
            "--config-env=core.pager=X log",
            "--exec-path=/tmp log",
            "--exec-p=/tmp log",
            "-p log",
            "--git-dir=/tmp/x log",
            "log --output=out",
            "log --outp=out",
            "diff --ext-diff",
            "diff --ext",
            "log --show-signature",
            "grep -O foo",
            "grep --open-files-in-pager foo",
            "cat-file --textconv HEAD:x",
            "config -f.git/logs/../config diff.external x",
            "config --file=.git/config diff.external x",
            "config --add x y",
            "config --unset x",
            "config user.name x",
            "branch newbranch",
            "branch -d old",
            "branch -rd origin/x",
            "tag v1",
            "tag -d v1",
            "remote add o url",
            "remote show origin",
            "reflog expire --all",
            "stash",
            "help log",
            "status --bogus",
            "log --format=%G?",
            "log --pretty=format:%h%x20%GS",
            "show -s --format=%GK HEAD",
            "for-each-ref --format=%(signature)",
            "stash -- list",
            "stash -p list",
            "stash --patch show",
            "notes -- list",
            "worktree -- list",
        ] {
            assert!(judge(bad).is_err(), "{bad}");
        }
    }
}
