//! The credential floor: paths no tool reads or writes in any mode.

use std::path::Path;

use crate::policy::unicode::fold;

/// Directories whose contents are credentials wherever they appear.
pub const SECRET_DIRS: &[&str] = &[
    ".ssh", ".aws", ".gnupg", ".gpg", ".kube", ".docker", ".azure",
];

/// Places under the home directory that hold tokens (command-line tools'
/// logins), matched as consecutive path components wherever they appear;
/// a recursive read must not enter or contain them either (see
/// [`crate::policy::protected`]).
pub const SECRET_HOME_PATHS: &[&str] = &[
    ".config/gh/hosts.yml",
    ".config/hub",
    ".config/gcloud",
    ".config/git/credentials",
    ".config/rclone/rclone.conf",
    ".config/op",
    ".config/doctl",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d/credentials.tfrc.json",
    ".gem/credentials",
    ".composer/auth.json",
    ".local/share/keyrings",
];

/// Whole file names that hold credentials.
const SECRET_FILES: &[&str] = &[
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    "credentials.json",
    "service-account.json",
    ".htpasswd",
    ".vault-token",
    ".s3cfg",
    ".boto",
    "shadow",
    "gshadow",
    "master.key",
];

/// File extensions that hold keys and certificates with private parts.
const SECRET_EXTENSIONS: &[&str] = &[
    "pem", "key", "p12", "pfx", "jks", "keystore", "ppk", "gpg", "asc",
];

/// Files under `/proc/<pid>/` that expose a process's secrets.
const PROC_SECRETS: &[&str] = &["environ", "mem", "auxv", "syscall", "kcore"];

/// Suffixes that make a `.env*` file a harmless template.
const ENV_TEMPLATE_SUFFIXES: &[&str] = &[".example", ".sample", ".template", ".dist", ".defaults"];

/// Why this path is a credential, or `None`. Look-alike characters are
/// folded first so `.еnv` (Cyrillic е) is still `.env`.
pub fn credential_reason(path: &str) -> Option<String> {
    let folded = fold(path).to_lowercase();
    let comps: Vec<&str> = folded
        .split(['/', '\\'])
        .filter(|c| !c.is_empty())
        .collect();
    for secret in SECRET_HOME_PATHS {
        let want: Vec<&str> = secret.split('/').collect();
        if comps.windows(want.len()).any(|w| w == want.as_slice()) {
            return Some(format!(
                "{path} is inside {secret}, which holds credentials"
            ));
        }
    }
    for (i, comp) in comps.iter().enumerate() {
        if SECRET_DIRS.contains(comp) {
            return Some(format!("{path} is inside {comp}, which holds credentials"));
        }
        // koi's own configuration (API keys) under ~/.config/koi or the
        // platform config dir.
        if *comp == "koi"
            && i > 0
            && (comps[i - 1] == ".config" || comps[i - 1] == "application support")
        {
            return Some(format!(
                "{path} is koi's own configuration, which holds API keys"
            ));
        }
    }
    if let Some(cfg) = dirs::config_dir() {
        let koi = cfg.join("koi");
        if Path::new(&folded).starts_with(koi.to_string_lossy().to_lowercase()) {
            return Some(format!(
                "{path} is koi's own configuration, which holds API keys"
            ));
        }
    }
    if let Some(why) = koi_data_reason(path, &folded, &comps) {
        return Some(why);
    }
    let name = comps.last().copied()?;
    // Another process's environment or memory holds its secrets (koi's
    // own API key among them).
    if comps.first() == Some(&"proc") && PROC_SECRETS.contains(&name) {
        return Some(format!("{path} exposes a process's environment or memory"));
    }
    if is_secret_name(name) {
        return Some(format!("{path} looks like a credential file"));
    }
    None
}

/// koi's data directory (`$XDG_DATA_HOME/koi`, `~/.local/share/koi`):
/// other conversations' sessions and the assistant's memory, which hold
/// whatever secrets were pasted there.
fn koi_data_reason(path: &str, folded: &str, comps: &[&str]) -> Option<String> {
    let why = || format!("{path} is in koi's data directory, which holds other conversations");
    if comps
        .windows(3)
        .any(|w| w == [".local", "share", "koi"].as_slice())
    {
        return Some(why());
    }
    let data = dirs::data_dir()?.join("koi");
    Path::new(folded)
        .starts_with(data.to_string_lossy().to_lowercase())
        .then(why)
}

/// What a hard link means for reading a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HardLink {
    /// The file is another name for a credential file: refused like it.
    Credential(String),
    /// The file has other names the checker cannot see (outside the
    /// workspace): not proven.
    Unknown(String),
}

/// Most entries looked at under the home directory's credential places
/// when a hard-linked file has to be compared with them.
const MAX_CREDENTIAL_ENTRIES: usize = 5_000;

/// A regular file with more than one name may be a credential under
/// another one: judge it by (device, inode) against the credential files
/// that exist under the home directory, koi's own directories and the
/// workspace's top level. Files with one name cost one `stat`.
pub fn hard_link(canonical: &Path, ws_root: &Path) -> Option<HardLink> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(canonical).ok()?;
    if !meta.is_file() || meta.nlink() <= 1 {
        return None;
    }
    hard_link_of(canonical, &meta, ws_root, &mut None)
}

/// [`hard_link`] for a walk: `known` keeps the credential inodes between
/// the files of one walk.
pub fn hard_link_of(
    canonical: &Path,
    meta: &std::fs::Metadata,
    ws_root: &Path,
    known: &mut Option<Vec<(u64, u64, std::path::PathBuf)>>,
) -> Option<HardLink> {
    use std::os::unix::fs::MetadataExt;
    if !meta.is_file() || meta.nlink() <= 1 {
        return None;
    }
    let inodes = known.get_or_insert_with(|| credential_inodes(ws_root));
    if let Some((_, _, cred)) = inodes
        .iter()
        .find(|(dev, ino, _)| *dev == meta.dev() && *ino == meta.ino())
    {
        return Some(HardLink::Credential(format!(
            "{} is a hard link to {}, a credential",
            canonical.display(),
            cred.display()
        )));
    }
    (!canonical.starts_with(ws_root)).then(|| {
        HardLink::Unknown(format!(
            "{} has {} names (hard links) and lies outside the workspace; one may be a \
             credential",
            canonical.display(),
            meta.nlink()
        ))
    })
}

/// How long a scan of the credential places is reused: one judgement
/// looks at the same files several times (floor, proof, each mode), and a
/// credential made a moment ago is still found by name.
const INODE_CACHE_FOR: std::time::Duration = std::time::Duration::from_secs(2);

/// (device, inode, path) of every credential file, scanned at most once
/// per [`INODE_CACHE_FOR`] for the same home and workspace.
fn credential_inodes(ws_root: &Path) -> Vec<(u64, u64, std::path::PathBuf)> {
    type Key = (Option<std::path::PathBuf>, std::path::PathBuf);
    type Entry = (std::time::Instant, Key, Vec<(u64, u64, std::path::PathBuf)>);
    static CACHE: std::sync::Mutex<Option<Entry>> = std::sync::Mutex::new(None);
    let key: Key = (dirs::home_dir(), ws_root.to_path_buf());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((when, k, inodes)) = cache.as_ref() {
        if *k == key && when.elapsed() < INODE_CACHE_FOR {
            return inodes.clone();
        }
    }
    let inodes = scan_credential_inodes(ws_root);
    *cache = Some((std::time::Instant::now(), key, inodes.clone()));
    inodes
}

/// (device, inode, path) of every credential file that exists in the
/// places credentials are kept.
fn scan_credential_inodes(ws_root: &Path) -> Vec<(u64, u64, std::path::PathBuf)> {
    use std::os::unix::fs::MetadataExt;
    let mut roots: Vec<std::path::PathBuf> = Vec::new();
    if let Some(home) = dirs::home_dir() {
        roots.extend(SECRET_DIRS.iter().map(|d| home.join(d)));
        roots.extend(SECRET_HOME_PATHS.iter().map(|d| home.join(d)));
        roots.extend(SECRET_FILES.iter().map(|f| home.join(f)));
        roots.push(home.join(".env"));
        roots.push(home.join(".config/koi"));
        roots.push(home.join(".local/share/koi"));
    }
    roots.extend(dirs::config_dir().map(|d| d.join("koi")));
    roots.extend(dirs::data_dir().map(|d| d.join("koi")));
    if let Ok(entries) = std::fs::read_dir(ws_root) {
        roots.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| credential_reason(&p.to_string_lossy()).is_some()),
        );
    }
    let mut out = Vec::new();
    let mut seen = 0usize;
    for root in roots {
        let walker = ignore::WalkBuilder::new(&root)
            .standard_filters(false)
            .follow_links(false)
            .max_depth(Some(6))
            .build();
        for entry in walker.flatten() {
            seen += 1;
            if seen > MAX_CREDENTIAL_ENTRIES {
                return out;
            }
            if let Ok(meta) = std::fs::symlink_metadata(entry.path()) {
                if meta.is_file() {
                    out.push((meta.dev(), meta.ino(), entry.path().to_path_buf()));
                }
            }
        }
    }
    out
}

/// Is this file name (already folded, lower case) a credential?
fn is_secret_name(name: &str) -> bool {
    if SECRET_FILES.contains(&name) {
        return true;
    }
    if name == ".env" || name.starts_with(".env.") || name.ends_with(".env") && name.len() > 4 {
        return !ENV_TEMPLATE_SUFFIXES.iter().any(|s| name.ends_with(s));
    }
    if name.starts_with("id_") {
        return true;
    }
    if let Some((_, ext)) = name.rsplit_once('.') {
        if SECRET_EXTENSIONS.contains(&ext) {
            return true;
        }
    }
    false
}

/// Check a path both as written and after following symlinks.
pub fn path_reason(written: &Path, canonical: &Path) -> Option<String> {
    credential_reason(&written.to_string_lossy()).or_else(|| {
        credential_reason(&canonical.to_string_lossy()).map(|r| {
            format!(
                "{} resolves to a credential: {r}",
                written.to_string_lossy()
            )
        })
    })
}

/// Names a glob could match that would be credentials; a content-reading
/// glob matching any of them is not proven safe.
pub const CREDENTIAL_SAMPLES: &[&str] = &[
    ".env",
    ".env.local",
    "id_rsa",
    "id_ed25519",
    "server.pem",
    "tls.key",
    ".netrc",
    ".ssh",
    ".aws",
    "cert.p12",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches() {
        for p in [
            "~/.ssh/id_rsa",
            ".env",
            "./config/.env.local",
            "a/prod.env",
            "../../.env",
            "key.pem",
            "tls.KEY",
            "/home/u/.aws/credentials",
            ".еnv",
            "id_ed25519.pub",
            "/home/u/.config/koi/koi.toml",
            "/proc/self/environ",
            "/proc/1234/environ",
            "/home/u/.config/gh/hosts.yml",
            "~/.config/gcloud/application_default_credentials.json",
            "/home/u/.cargo/credentials.toml",
            ".vault-token",
            "/root/.local/share/keyrings/login.keyring",
            "/home/u/.local/share/koi/sessions/a.jsonl",
            "~/.local/share/koi",
            "/root/.local/share/koi/memory/x.md",
        ] {
            assert!(credential_reason(p).is_some(), "{p}");
        }
        for p in [
            ".env.example",
            "src/env.rs",
            "README.md",
            "keys.rs",
            "monkey",
            "Cargo.toml",
            ".environment.md",
            "/home/u/.config/gh/config.yml",
            "/home/u/.cargo/config.toml",
            "src/credentials.rs",
            "/home/u/.local/share/fonts/koi.ttf",
            "/home/u/.local/share/koi-theme/x",
        ] {
            assert!(credential_reason(p).is_none(), "{p}");
        }
    }
}
