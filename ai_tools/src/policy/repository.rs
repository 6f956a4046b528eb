//! Which repository a git command would open, found the way git finds it,
//! so the proof can tell the user's own repository from one that merely
//! sits in a directory. A repository brings its configuration, and git
//! configuration names programs that read-only commands run
//! (`core.fsmonitor` for `git status`, `diff.external` for `git diff`,
//! textconv drivers for `git log -p`). Only the workspace's repository
//! (or one enclosing it, or one checked out inside it) is trusted: files
//! named `HEAD`, `config`, `objects/` and `refs/` committed to a project
//! make a bare repository git opens from any directory beneath them, and
//! a repository outside the workspace is anyone's. Whichever repository
//! it is, one whose own configuration names a program (see
//! [`crate::policy::git_config`]) is never proven: a read-only command
//! would run it.

use std::path::Path;

use crate::policy::git_config;
use crate::workspace::Workspace;

/// Why a git command started in `start` (canonical) is not proven: the
/// repository it would open is not the workspace's. `None` when git would
/// find a trusted repository, or none at all.
pub fn untrusted_reason(start: &Path, ws: &Workspace) -> Option<String> {
    let trusted = |dir: &Path| dir.starts_with(ws.root()) || ws.root().starts_with(dir);
    for dir in start.ancestors() {
        // git looks for `DIR/.git` first, then at DIR itself as a git
        // directory (a bare repository), then moves up.
        let dot_git = dir.join(".git");
        if dot_git.is_file() || dot_git.join("HEAD").is_file() {
            if !trusted(dir) {
                return Some(format!(
                    "git would open the repository at {}, outside the workspace, whose \
                     configuration can name programs to run",
                    dir.display()
                ));
            }
            return git_config::repository_reason(&dot_git);
        }
        if dir.join("HEAD").is_file() {
            let own =
                dir.file_name().is_some_and(|n| n == ".git") && dir.parent().is_some_and(trusted);
            if !own {
                return Some(format!(
                    "git would open {} as a bare repository, whose configuration can name \
                     programs to run",
                    dir.display()
                ));
            }
            return git_config::repository_reason(dir);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(path, "ref: refs/heads/main\n").unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn own_nested_and_planted_repositories() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let base = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
        let root = base.join("ws");
        touch(&root.join(".git/HEAD"));
        touch(&root.join("planted/HEAD"));
        touch(&root.join("vendor/lib/.git/HEAD"));
        touch(&base.join("other/.git/HEAD"));
        std::fs::create_dir_all(root.join("src")).unwrap_or_else(|e| panic!("{e}"));
        let ws = Workspace::new(&root).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(untrusted_reason(&root, &ws), None);
        assert_eq!(untrusted_reason(&root.join("src"), &ws), None);
        assert_eq!(untrusted_reason(&root.join(".git"), &ws), None);
        assert_eq!(untrusted_reason(&root.join("vendor/lib"), &ws), None);
        assert!(untrusted_reason(&root.join("planted"), &ws).is_some());
        assert!(untrusted_reason(&root.join("planted/refs"), &ws).is_some());
        assert!(untrusted_reason(&base.join("other"), &ws).is_some());
        // No repository at all: git itself refuses.
        assert_eq!(untrusted_reason(&base, &ws), None);
    }

    #[test]
    fn a_repository_whose_config_names_a_program_is_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
        touch(&root.join(".git/HEAD"));
        touch(&root.join("vendor/lib/.git/HEAD"));
        touch(&root.join("sub/wt/.git"));
        let ws = Workspace::new(&root).unwrap_or_else(|e| panic!("{e}"));
        let write =
            |p: &Path, text: &str| std::fs::write(p, text).unwrap_or_else(|e| panic!("{e}"));
        write(
            &root.join(".git/config"),
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = x\n",
        );
        assert_eq!(untrusted_reason(&root, &ws), None);
        // The vendored repository's own config runs a diff program.
        write(
            &root.join("vendor/lib/.git/config"),
            "[diff \"x\"]\n\ttextconv = sh -c payload\n",
        );
        assert!(untrusted_reason(&root.join("vendor/lib"), &ws).is_some());
        assert_eq!(untrusted_reason(&root.join("sub"), &ws), None);
        // A worktree-style `.git` file leads to another git directory.
        std::fs::create_dir_all(root.join("gd")).unwrap_or_else(|e| panic!("{e}"));
        write(&root.join("sub/wt/.git"), "gitdir: ../../gd\n");
        write(&root.join("gd/config"), "[core]\nfsmonitor = payload\n");
        assert!(untrusted_reason(&root.join("sub/wt"), &ws).is_some());
        write(&root.join("gd/config"), "[core]\nfsmonitor = false\n");
        assert_eq!(untrusted_reason(&root.join("sub/wt"), &ws), None);
        std::fs::create_dir_all(root.join("gd/hooks")).unwrap_or_else(|e| panic!("{e}"));
        write(
            &root.join("gd/hooks/post-index-change"),
            "#!/bin/sh\npayload\n",
        );
        assert!(untrusted_reason(&root.join("sub/wt"), &ws).is_some());
        write(&root.join("sub/wt/.git"), "not a gitdir line\n");
        assert!(untrusted_reason(&root.join("sub/wt"), &ws).is_some());
        // The workspace's own repository too.
        write(&root.join(".git/config"), "[alias]\n\tst = !payload\n");
        assert!(untrusted_reason(&root, &ws).is_some());
    }
}
