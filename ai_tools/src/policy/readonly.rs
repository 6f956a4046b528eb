//! The read-only proof: a command line auto-runs only if every step the
//! walker found (see [`walk`]) is proven not to change anything. Anything
//! the proof cannot see through (an unknown value, a substitution, a
//! subshell, a here-doc, a background job, an unknown program or option,
//! a redirect to a file) abstains.

use std::path::{Path, PathBuf};

use crate::policy::credentials::{self, HardLink};
use crate::policy::programs::{self, PathRole, Walk as TreeWalk};
use crate::policy::protected;
use crate::policy::repository;
use crate::policy::shell_parse::RedirOp;
use crate::policy::unicode;
use crate::policy::walk::{resolve_arg, Context, Redir, Step, Walk};
use crate::workspace::{canonicalize_lenient, Workspace};

/// Prefix assignments that cannot make a read-only program run code.
/// `LD_PRELOAD`, `GIT_*`, `PAGER` and the like are exactly the ones that can.
const SAFE_ASSIGNMENTS: &[&str] = &[
    "LC_ALL", "LANG", "LANGUAGE", "TZ", "NO_COLOR", "COLUMNS", "LINES", "TERM",
];

/// Most directory entries the proof walks to check that a recursive
/// search would not read a credential; bigger trees are not proven (ask).
pub const MAX_WALK_ENTRIES: usize = 20_000;

/// Prove the walked command line read-only, or say why not.
pub fn prove(walk: &Walk, ws: &Workspace) -> Result<(), String> {
    if let Some(text) = walk.unparsed.first() {
        return Err(format!("part of it could not be parsed: {text}"));
    }
    if let Some(why) = &walk.unfollowed {
        return Err(why.clone());
    }
    let protected = protected::protected(ws);
    for step in &walk.steps {
        match &step.context {
            Context::Plain => {}
            Context::Substitution => {
                return Err("uses a command or process substitution".into());
            }
            Context::Unfollowed(why) => return Err(why.clone()),
        }
        prove_step(step, ws, &protected)?;
    }
    Ok(())
}

fn prove_step(step: &Step, ws: &Workspace, protected: &[PathBuf]) -> Result<(), String> {
    if let Some(why) = &step.unknown {
        return Err(why.clone());
    }
    let cwd = step
        .cwd
        .as_deref()
        .ok_or("runs in a directory the checker cannot know (cd -)")?;
    for (name, value) in &step.assigns {
        if step.argv.is_empty() {
            return Err(format!("sets a shell variable ({name}=…)"));
        }
        if !SAFE_ASSIGNMENTS.contains(&name.as_str()) {
            return Err(format!(
                "sets {name} for the command, which can change what it runs"
            ));
        }
        if value.unknown.is_some() {
            return Err(format!("computes the value of {name}"));
        }
    }
    for w in &step.argv {
        if unicode::has_tricky_chars(w)
            || w.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
        {
            return Err(format!(
                "contains look-alike, invisible or control characters in {:?}",
                unicode::visible(w)
            ));
        }
    }
    for r in &step.redirects {
        check_redirect(r, cwd, ws)?;
    }
    if step.argv.is_empty() {
        // Only redirects (checked above).
        return Ok(());
    }
    if step.computed_program {
        return Err("computes the program's name (a glob or expansion in command position)".into());
    }
    if !step.wrap.transparent {
        return Err(format!(
            "runs through {}, which the checker does not follow",
            step.wrap.names.join(" ")
        ));
    }
    let cmd = step.command();
    let Some(first) = cmd.first() else {
        return Ok(());
    };
    let program = program_name(first)?;
    let j = programs::judge(program, &cmd[1..]).map_err(|why| format!("{program}: {why}"))?;
    for (path, role) in &j.paths {
        check_path(path, *role, cwd, ws)?;
    }
    if let Some(walk) = &j.walk {
        check_walk(program, walk, cwd, ws, protected)?;
    }
    if let Some(at) = &j.repository {
        let start = canonicalize_lenient(&resolve_arg(at, cwd));
        if let Some(why) = repository::untrusted_reason(&start, ws) {
            return Err(why);
        }
    }
    Ok(())
}

/// The program's bare name; a path is accepted only in the system bin dirs.
fn program_name(name: &str) -> Result<&str, String> {
    if !name.contains('/') {
        return Ok(name);
    }
    const SYSTEM_BINS: &[&str] = &[
        "/bin/",
        "/usr/bin/",
        "/usr/local/bin/",
        "/sbin/",
        "/usr/sbin/",
    ];
    match SYSTEM_BINS.iter().find(|d| name.starts_with(*d)) {
        Some(dir) if !name[dir.len()..].contains('/') => Ok(&name[dir.len()..]),
        _ => Err(format!("runs {name}, which is not a system program")),
    }
}

/// Only `/dev/null`-like targets, fd duplication (`2>&1`) and reading a
/// file (`< file`) are read-only.
fn check_redirect(r: &Redir, cwd: &Path, ws: &Workspace) -> Result<(), String> {
    if let Some(why) = &r.target.unknown {
        return Err(format!("redirects to a computed target: {why}"));
    }
    let target = match r.target.words.as_slice() {
        [one] => one.as_str(),
        _ => return Err(format!("redirects to {}, which is not one word", r.written)),
    };
    match r.op {
        RedirOp::HereDoc | RedirOp::HereString => Err("uses a here-document".into()),
        RedirOp::ReadWrite => Err("opens a file for writing (<>)".into()),
        RedirOp::DupOut | RedirOp::DupIn => {
            if target == "-"
                || (!target.is_empty() && target.chars().all(|c| c.is_ascii_digit()))
                || target == "/dev/null"
            {
                Ok(())
            } else {
                Err(format!("redirects output to {target}"))
            }
        }
        RedirOp::Out | RedirOp::Append | RedirOp::OutErr => match target {
            "/dev/null" | "/dev/stdout" | "/dev/stderr" => Ok(()),
            _ => Err(format!("writes to {target}")),
        },
        RedirOp::In => check_path(target, PathRole::Content, cwd, ws),
    }
}

/// A path must not name a credential (as written or after following
/// symlinks), a registered protected path, or a device other than the
/// harmless ones.
fn check_path(arg: &str, role: PathRole, cwd: &Path, ws: &Workspace) -> Result<(), String> {
    if role == PathRole::NotPath {
        return Ok(());
    }
    let pieces = std::iter::once(arg).chain(arg.split_once('=').map(|(_, v)| v));
    for piece in pieces {
        let resolved = resolve_arg(piece, cwd);
        // Metadata of a symlink is not its target's contents.
        let canonical = match role {
            PathRole::Content => canonicalize_lenient(&resolved),
            _ => resolved,
        };
        if let Some(why) = credentials::path_reason(Path::new(piece), &canonical) {
            return Err(why);
        }
        if let Some(why) = protected::registered_reason(&canonical, ws) {
            return Err(why);
        }
    }
    if role == PathRole::Content {
        let resolved = resolve_arg(arg, cwd);
        match credentials::hard_link(&canonicalize_lenient(&resolved), ws.root()) {
            Some(HardLink::Credential(why) | HardLink::Unknown(why)) => return Err(why),
            None => {}
        }
        if let Some(dev) = resolved.to_str().filter(|p| p.starts_with("/dev/")) {
            if !matches!(
                dev,
                "/dev/null" | "/dev/zero" | "/dev/stdin" | "/dev/urandom" | "/dev/random"
            ) && !dev.starts_with("/dev/fd/")
            {
                return Err(format!("reads the device {dev}"));
            }
        }
    }
    Ok(())
}

/// A recursive read: every root, canonical, must stay clear of protected
/// places; a content search must not meet a credential file on its way.
fn check_walk(
    program: &str,
    walk: &TreeWalk,
    cwd: &Path,
    ws: &Workspace,
    protected: &[PathBuf],
) -> Result<(), String> {
    for root in &walk.roots {
        let canonical = canonicalize_lenient(&resolve_arg(root, cwd));
        // Empty to every walker (`diff -r dir /dev/null`), though in /dev.
        if canonical == Path::new("/dev/null") {
            continue;
        }
        if let Some(why) = protected::walk_reason(&canonical, protected) {
            return Err(format!("{program} would walk {root} recursively: {why}"));
        }
        if walk.content && tree_has_credentials(&canonical, walk, protected, ws.root())? {
            return Err(format!(
                "{program} would search {} recursively, and it holds credential files",
                ws.display(&canonical)
            ));
        }
    }
    Ok(())
}

/// Walk `root` (bounded) looking for credential files a recursive search
/// would read (by name, or by inode for a file with several names), and
/// for symlinks it would follow out of the tree. Too big a tree counts as
/// "might".
pub fn tree_has_credentials(
    root: &Path,
    walk: &TreeWalk,
    protected: &[PathBuf],
    ws_root: &Path,
) -> Result<bool, String> {
    let mut inodes = None;
    if root.is_file() {
        if credentials::credential_reason(&root.to_string_lossy()).is_some() {
            return Ok(true);
        }
        return linked_file(root, ws_root, &mut inodes);
    }
    let walker = ignore::WalkBuilder::new(root)
        .hidden(!walk.hidden)
        .git_ignore(walk.ignore_files)
        .git_global(walk.ignore_files)
        .git_exclude(walk.ignore_files)
        .ignore(walk.ignore_files)
        .parents(walk.ignore_files)
        .follow_links(false)
        .build();
    for (n, entry) in walker.enumerate() {
        if n >= MAX_WALK_ENTRIES {
            return Err(format!(
                "the tree under {} is too big to check for credential files",
                root.display()
            ));
        }
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        if credentials::credential_reason(&rel.to_string_lossy()).is_some() {
            return Ok(true);
        }
        if entry.file_type().is_some_and(|t| t.is_file())
            && linked_file(path, ws_root, &mut inodes)?
        {
            return Ok(true);
        }
        // A symlink inside the tree is read only by a walk that follows
        // links (grep -R, rg -L, diff).
        if walk.follow && entry.path_is_symlink() {
            let target = canonicalize_lenient(path);
            if credentials::credential_reason(&target.to_string_lossy()).is_some() {
                return Ok(true);
            }
            if protected::walk_reason(&target, protected).is_some() {
                return Err(format!(
                    "{} links to {}, which a search following links would enter",
                    path.display(),
                    target.display()
                ));
            }
            // A linked directory is walked too, and this walk does not
            // enter it: only one inside the tree already walked is known.
            if target.is_dir() && !target.starts_with(root) {
                return Err(format!(
                    "{} links to the directory {}, which a walk following links would \
                     read too",
                    path.display(),
                    target.display()
                ));
            }
            if target.is_file() && linked_file(&target, ws_root, &mut inodes)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// A file with several names: `Ok(true)` when one is a credential's,
/// `Err` when the checker cannot tell (outside the workspace).
fn linked_file(
    path: &Path,
    ws_root: &Path,
    inodes: &mut Option<Vec<(u64, u64, PathBuf)>>,
) -> Result<bool, String> {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(false);
    };
    if meta.nlink() <= 1 {
        return Ok(false);
    }
    match credentials::hard_link_of(&canonicalize_lenient(path), &meta, ws_root, inodes) {
        None => Ok(false),
        Some(HardLink::Credential(_)) => Ok(true),
        Some(HardLink::Unknown(why)) => Err(why),
    }
}
