//! What a confined command cannot see: the credentials every tool keeps
//! under the home directory, koi's own config and data, the paths the user
//! names in `sandbox_hidden`, and the workspace's own secret files (found
//! by [`super::secret_scan`]). Inside the sandbox each is an empty
//! directory or an empty file ([`super::namespace`]), or, where no mount
//! namespace can be made, unreadable ([`super::rules`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Directories under the home directory that hold logins, keys and tokens:
/// what ssh, gpg, the cloud CLIs, container and cluster tools, package
/// registries' clients, password stores and AI tools keep.
pub const HOME_DIRS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".gpg",
    ".aws",
    ".azure",
    ".kube",
    ".oci",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".config/glab-cli",
    ".config/op",
    ".config/doctl",
    ".config/rclone",
    ".config/hcloud",
    ".config/stripe",
    ".config/ngrok",
    ".config/configstore",
    ".config/Bitwarden CLI",
    ".password-store",
    ".local/share/keyrings",
    ".fly",
    ".ngrok2",
];

/// Files under the home directory that hold credentials (where the
/// directory around them also holds what builds need: caches, plugins,
/// installed packages), and the shell and REPL histories (commands typed
/// with secrets in them).
pub const HOME_FILES: &[&str] = &[
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".docker/config.json",
    ".config/containers/auth.json",
    ".config/helm/repositories.yaml",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".config/pip/pip.conf",
    ".pip/pip.conf",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".ivy2/.credentials",
    ".gradle/gradle.properties",
    ".gem/credentials",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".terraform.d/credentials.tfrc.json",
    ".terraformrc",
    ".vault-token",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".codex/auth.json",
    ".claude/.credentials.json",
    ".claude.json",
    ".huggingface/token",
    ".cache/huggingface/token",
    ".bash_history",
    ".zsh_history",
    ".histfile",
    ".sh_history",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".lesshst",
    ".viminfo",
];

/// System files with secrets in them (readable only by root, who runs
/// commands too).
pub const SYSTEM_FILES: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ecdsa_key",
    "/etc/ssh/ssh_host_ed25519_key",
];

/// Whether a hidden path is a directory or something else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HiddenKind {
    /// Replaced by an empty directory.
    Dir,
    /// Replaced by an empty file.
    File,
}

/// One hidden path: canonical (symlinks resolved, so the mount and the
/// Landlock rules land on the real place) and existing when found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HiddenEntry {
    /// The canonical path.
    pub path: PathBuf,
    /// What it is.
    pub kind: HiddenKind,
}

/// The hidden set of one run, sorted, without paths inside other hidden
/// directories (the outer mount already hides them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HiddenPaths {
    entries: Vec<HiddenEntry>,
}

impl HiddenPaths {
    /// Every candidate that exists, canonical, except the workspace itself
    /// and its ancestors (hiding those would hide the work; the policy
    /// refuses to work inside a credential directory anyway).
    pub fn new<I: IntoIterator<Item = PathBuf>>(candidates: I, workspace: &Path) -> HiddenPaths {
        let mut found: BTreeMap<PathBuf, HiddenKind> = BTreeMap::new();
        for candidate in candidates {
            let Ok(path) = candidate.canonicalize() else {
                continue;
            };
            if workspace.starts_with(&path) {
                continue;
            }
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            let kind = if meta.is_dir() {
                HiddenKind::Dir
            } else {
                HiddenKind::File
            };
            found.insert(path, kind);
        }
        let mut entries: Vec<HiddenEntry> = Vec::with_capacity(found.len());
        for (path, kind) in found {
            // Sorted, so a directory comes before everything inside it.
            let covered = entries
                .iter()
                .rev()
                .take_while(|e| path.starts_with(&e.path))
                .any(|e| e.kind == HiddenKind::Dir);
            if !covered {
                entries.push(HiddenEntry { path, kind });
            }
        }
        HiddenPaths { entries }
    }

    /// The entries, sorted by path.
    pub fn entries(&self) -> &[HiddenEntry] {
        &self.entries
    }

    /// The hidden entry that holds `path` (canonical), if any.
    pub fn covering(&self, path: &Path) -> Option<&HiddenEntry> {
        self.entries.iter().find(|e| path.starts_with(&e.path))
    }

    /// Whether nothing is hidden.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The fixed candidates: credentials under `home`, the system's secret
/// files, koi's own config and data directories, and `extra` (the user's
/// `sandbox_hidden` and the config file koi was started with).
pub fn fixed_candidates(home: Option<&Path>, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(home) = home {
        out.extend(HOME_DIRS.iter().chain(HOME_FILES).map(|p| home.join(p)));
    }
    out.extend(SYSTEM_FILES.iter().map(PathBuf::from));
    out.extend(koi_dirs());
    out.extend(extra.iter().cloned());
    out
}

/// koi's own configuration (API keys) and data (every conversation, the
/// memory): the platform directories, which honour `XDG_CONFIG_HOME` and
/// `XDG_DATA_HOME`.
pub fn koi_dirs() -> Vec<PathBuf> {
    [dirs::config_dir(), dirs::data_dir(), dirs::state_dir()]
        .into_iter()
        .flatten()
        .map(|d| d.join("koi"))
        .collect()
}

/// The note the model reads when a confined command failed near a hidden
/// path it named: which path, and that the user has to run it.
pub fn hidden_note(hidden: &HiddenPaths, text: &str, home: Option<&Path>) -> Option<String> {
    let shown = |p: &Path| match home.and_then(|h| p.strip_prefix(h).ok()) {
        Some(rel) => format!("~/{}", rel.display()),
        None => p.display().to_string(),
    };
    let named: Vec<String> = hidden
        .entries()
        .iter()
        .map(|e| shown(&e.path))
        .filter(|p| text.contains(p.as_str()) || text.contains(p.trim_start_matches("~/")))
        .take(3)
        .collect();
    if named.is_empty() {
        return None;
    }
    Some(format!(
        "[sandbox] {} is hidden from commands koi runs (it holds credentials); it reads as empty. \
If the user needs it, ask them to run the command themselves.",
        named.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_is_canonical_existing_and_minimal() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().canonicalize().unwrap_or_default();
        let ssh = root.join(".ssh");
        std::fs::create_dir(&ssh).unwrap_or_default();
        std::fs::write(ssh.join("id_rsa"), "k").unwrap_or_default();
        std::fs::write(root.join(".netrc"), "m").unwrap_or_default();
        std::os::unix::fs::symlink(root.join(".netrc"), root.join("link")).unwrap_or_default();
        let ws = root.join("ws");
        std::fs::create_dir(&ws).unwrap_or_default();
        let set = HiddenPaths::new(
            [
                ssh.join("id_rsa"),
                ssh.clone(),
                root.join("link"),
                root.join("missing"),
                root.clone(),
            ],
            &ws,
        );
        assert_eq!(
            set.entries(),
            &[
                HiddenEntry {
                    path: root.join(".netrc"),
                    kind: HiddenKind::File
                },
                HiddenEntry {
                    path: ssh.clone(),
                    kind: HiddenKind::Dir
                },
            ]
        );
        assert!(set.covering(&ssh.join("id_rsa")).is_some());
        assert!(set.covering(&ws).is_none());
    }

    #[test]
    fn the_model_is_told_which_path_is_hidden() {
        let set = HiddenPaths {
            entries: vec![HiddenEntry {
                path: PathBuf::from("/home/u/.ssh"),
                kind: HiddenKind::Dir,
            }],
        };
        let note = hidden_note(
            &set,
            "cat: /home/u/.ssh/id_rsa: No such file",
            Some(Path::new("/home/u")),
        );
        assert!(note.is_some_and(|n| n.contains("~/.ssh is hidden")));
        assert_eq!(
            hidden_note(&set, "ls: cannot access 'x'", Some(Path::new("/home/u"))),
            None
        );
    }
}
