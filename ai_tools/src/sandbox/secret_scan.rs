//! The workspace's own secret files, found once per registry (one
//! conversation) and kept current by a file watcher: every file the
//! credential floor would refuse to read by name (`.env`, `.env.local`,
//! private keys, `*.pem`, …), gitignored or not, and every hard link to a
//! credential file that lives elsewhere. Each is hidden from confined
//! commands like the credentials under the home directory, so `rg
//! --no-ignore`, `git grep --no-index` and `cat` find them empty.
//!
//! Cost: one walk of the workspace without ignore files (`.git` skipped),
//! bounded by [`MAX_SCAN_ENTRIES`]; measured by `cargo bench -p ai_tools
//! --bench shell`. After that a watcher adds files as they appear.

use std::collections::{BTreeSet, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::hidden::{fixed_candidates, HiddenKind, HiddenPaths};
use crate::policy::credentials::credential_reason;

/// Entries one scan visits at most. A workspace past this (a home
/// directory, a monorepo with vendored trees) is hidden only as far as the
/// walk got, and the scan says so.
pub const MAX_SCAN_ENTRIES: usize = 300_000;

/// Files looked at under each hidden credential directory to learn their
/// inodes (for hard links into the workspace).
const MAX_CREDENTIAL_FILES: usize = 4_096;

/// A file's identity: device and inode.
type Inode = (u64, u64);

/// What one scan found and what it cost.
#[derive(Debug, Clone, Default)]
pub struct ScanReport {
    /// Entries visited.
    pub visited: usize,
    /// Whether the walk stopped at [`MAX_SCAN_ENTRIES`].
    pub truncated: bool,
    /// Wall time of the walk.
    pub elapsed: Duration,
}

struct State {
    found: BTreeSet<PathBuf>,
    credential_inodes: HashSet<Inode>,
}

/// The workspace's secret files, current.
pub struct SecretScan {
    state: Arc<Mutex<State>>,
    report: ScanReport,
    /// Keeps the watch alive; `None` where no watcher could start (the
    /// set is then as of the scan).
    _watcher: Option<notify::RecommendedWatcher>,
}

impl std::fmt::Debug for SecretScan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretScan")
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

/// Whether a file at `rel` (relative to the workspace) is a secret by
/// name, or by being a hard link to one of `credential_inodes`.
fn is_secret(rel: &Path, meta: &std::fs::Metadata, inodes: &HashSet<Inode>) -> bool {
    if meta.is_file() && meta.nlink() > 1 && inodes.contains(&(meta.dev(), meta.ino())) {
        return true;
    }
    credential_reason(&rel.to_string_lossy()).is_some()
}

/// Everything one registry hides: the fixed credentials and the
/// workspace's secret files, scanned on first use (the first confined run
/// pays for the walk; a registry that runs no command never walks).
#[derive(Debug)]
pub struct SecretIndex {
    root: PathBuf,
    fixed: Vec<PathBuf>,
    scan: OnceLock<SecretScan>,
}

impl SecretIndex {
    /// The index for a workspace at `root`, hiding `extra` too.
    pub fn new(root: &Path, extra: &[PathBuf]) -> SecretIndex {
        SecretIndex {
            root: root.to_path_buf(),
            fixed: fixed_candidates(dirs::home_dir().as_deref(), extra),
            scan: OnceLock::new(),
        }
    }

    /// What a run started now must not see.
    pub fn current(&self) -> HiddenPaths {
        let scan = self.scan.get_or_init(|| {
            let fixed = HiddenPaths::new(self.fixed.iter().cloned(), &self.root);
            SecretScan::start(&self.root, &fixed)
        });
        HiddenPaths::new(self.fixed.iter().cloned().chain(scan.files()), &self.root)
    }

    /// What the workspace scan cost, once it ran.
    pub fn report(&self) -> Option<&ScanReport> {
        self.scan.get().map(SecretScan::report)
    }
}

impl SecretScan {
    /// Scans `root` now and watches it from then on. `credentials` is the
    /// fixed hidden set, whose files' inodes a hard link may share.
    pub fn start(root: &Path, credentials: &HiddenPaths) -> SecretScan {
        let state = Arc::new(Mutex::new(State {
            found: BTreeSet::new(),
            credential_inodes: credential_inodes(credentials),
        }));
        let watcher = watch(root, Arc::clone(&state));
        let report = scan(root, &state);
        SecretScan {
            state,
            report,
            _watcher: watcher,
        }
    }

    /// The files found so far, existing ones only.
    pub fn files(&self) -> Vec<PathBuf> {
        match self.state.lock() {
            Ok(mut s) => {
                s.found.retain(|p| p.exists());
                s.found.iter().cloned().collect()
            }
            Err(_) => Vec::new(),
        }
    }

    /// What the first scan cost.
    pub fn report(&self) -> &ScanReport {
        &self.report
    }
}

fn credential_inodes(credentials: &HiddenPaths) -> HashSet<Inode> {
    let mut out = HashSet::new();
    for e in credentials.entries() {
        match e.kind {
            HiddenKind::File => {
                if let Ok(m) = std::fs::metadata(&e.path) {
                    out.insert((m.dev(), m.ino()));
                }
            }
            HiddenKind::Dir => {
                let walk = ignore::WalkBuilder::new(&e.path)
                    .standard_filters(false)
                    .max_depth(Some(4))
                    .build();
                for entry in walk.flatten().take(MAX_CREDENTIAL_FILES) {
                    if let Ok(m) = entry.metadata() {
                        if m.is_file() {
                            out.insert((m.dev(), m.ino()));
                        }
                    }
                }
            }
        }
    }
    out
}

fn scan(root: &Path, state: &Arc<Mutex<State>>) -> ScanReport {
    let start = Instant::now();
    let inodes = match state.lock() {
        Ok(s) => s.credential_inodes.clone(),
        Err(_) => return ScanReport::default(),
    };
    let mut found = Vec::new();
    let mut visited = 0usize;
    let mut truncated = false;
    let walk = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walk.flatten() {
        visited += 1;
        if visited > MAX_SCAN_ENTRIES {
            truncated = true;
            break;
        }
        let path = entry.path();
        let Ok(rel) = path.strip_prefix(root) else {
            continue;
        };
        if rel.as_os_str().is_empty() {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        if meta.is_dir() && !meta.file_type().is_symlink() {
            // A directory named like a credential one (`.ssh` inside a
            // test fixture) is hidden whole.
            if credential_reason(&rel.to_string_lossy()).is_some() {
                found.push(path.to_path_buf());
            }
            continue;
        }
        if is_secret(rel, &meta, &inodes) {
            found.push(path.to_path_buf());
        }
    }
    if let Ok(mut s) = state.lock() {
        s.found.extend(found);
    }
    ScanReport {
        visited,
        truncated,
        elapsed: start.elapsed(),
    }
}

fn watch(root: &Path, state: Arc<Mutex<State>>) -> Option<notify::RecommendedWatcher> {
    use notify::{EventKind, RecursiveMode, Watcher};
    let owned_root = root.to_path_buf();
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let Ok(event) = res else {
            return;
        };
        if !matches!(event.kind, EventKind::Create(_) | EventKind::Modify(_)) {
            return;
        }
        let Ok(mut s) = state.lock() else {
            return;
        };
        for path in event.paths {
            let Ok(rel) = path.strip_prefix(&owned_root) else {
                continue;
            };
            if rel.components().any(|c| c.as_os_str() == ".git") {
                continue;
            }
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if is_secret(rel, &meta, &s.credential_inodes) {
                s.found.insert(path);
            }
        }
    })
    .ok()?;
    watcher.watch(root, RecursiveMode::Recursive).ok()?;
    Some(watcher)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait_for(scan: &SecretScan, want: &Path) -> bool {
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if scan.files().iter().any(|p| p == want) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    #[test]
    fn finds_secret_files_links_and_new_ones() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().canonicalize().unwrap_or_default();
        let home = root.join("home");
        let ws = root.join("ws");
        for d in [home.join(".ssh"), ws.join("src"), ws.join("node_modules/x")] {
            std::fs::create_dir_all(d).unwrap_or_default();
        }
        std::fs::write(home.join(".ssh/id_rsa"), "KEY").unwrap_or_default();
        std::fs::write(ws.join(".env"), "A=1").unwrap_or_default();
        std::fs::write(ws.join("node_modules/x/.env.local"), "B=1").unwrap_or_default();
        std::fs::write(ws.join("src/main.rs"), "fn main(){}").unwrap_or_default();
        std::fs::write(ws.join(".env.example"), "A=").unwrap_or_default();
        std::fs::hard_link(home.join(".ssh/id_rsa"), ws.join("src/notes.txt")).unwrap_or_default();
        let creds = HiddenPaths::new([home.join(".ssh")], &ws);
        let scan = SecretScan::start(&ws, &creds);
        let files = scan.files();
        assert!(files.contains(&ws.join(".env")), "{files:?}");
        assert!(
            files.contains(&ws.join("node_modules/x/.env.local")),
            "{files:?}"
        );
        assert!(
            files.contains(&ws.join("src/notes.txt")),
            "hard link: {files:?}"
        );
        assert!(!files.contains(&ws.join("src/main.rs")), "{files:?}");
        assert!(!files.contains(&ws.join(".env.example")), "{files:?}");
        assert!(scan.report().visited >= 6);
        // Kept current: a secret written after the scan is found too.
        std::fs::create_dir_all(ws.join("later")).unwrap_or_default();
        std::thread::sleep(Duration::from_millis(100));
        std::fs::write(ws.join("later/server.pem"), "PEM").unwrap_or_default();
        assert!(
            wait_for(&scan, &ws.join("later/server.pem")),
            "{:?}",
            scan.files()
        );
        std::fs::remove_file(ws.join(".env")).unwrap_or_default();
        assert!(!scan.files().contains(&ws.join(".env")));
    }
}
