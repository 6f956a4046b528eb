//! Which programs on PATH can run a `run_code` program: `node` (or
//! `deno`) for JavaScript; `deno`, `tsx`, or a `node` that strips types
//! itself (22.6 and later) for TypeScript.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The language a program is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Plain JavaScript.
    Javascript,
    /// TypeScript (types are stripped, not checked).
    Typescript,
}

impl Language {
    /// The file extension its program gets.
    pub fn extension(self) -> &'static str {
        match self {
            Language::Javascript => "js",
            Language::Typescript => "ts",
        }
    }
}

/// One way to run a program file: the executable and the arguments that
/// go before the file's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runtime {
    /// The executable, as found on PATH.
    pub program: PathBuf,
    /// Arguments before the program file.
    pub args: Vec<String>,
}

impl Runtime {
    /// The runtime's short name (`node`, `tsx`, `deno`), for messages.
    pub fn name(&self) -> String {
        self.program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.program.display().to_string())
    }

    fn plain(program: PathBuf) -> Self {
        Runtime {
            program,
            args: Vec::new(),
        }
    }

    fn deno(program: PathBuf) -> Self {
        // koi's sandbox confines the run; deno's own permission prompts
        // would only stall it.
        Runtime {
            program,
            args: vec!["run".into(), "--allow-all".into(), "--quiet".into()],
        }
    }
}

/// The runtimes found for each language.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Runtimes {
    /// Runs JavaScript.
    pub javascript: Option<Runtime>,
    /// Runs TypeScript.
    pub typescript: Option<Runtime>,
}

/// The first node version whose `--experimental-strip-types` runs
/// TypeScript files.
const STRIP_TYPES_SINCE: (u32, u32) = (22, 6);

impl Runtimes {
    /// Looks on PATH (runs `node --version` at most once, and only when
    /// no other TypeScript runtime is there). `None` when nothing can run
    /// a program: then `run_code` is not declared at all.
    /// Looked up once per process: PATH does not change under koi.
    pub fn detect() -> Option<Runtimes> {
        static FOUND: std::sync::OnceLock<Option<Runtimes>> = std::sync::OnceLock::new();
        FOUND
            .get_or_init(|| {
                let path = std::env::var_os("PATH")?;
                let dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
                Self::detect_in(&dirs)
            })
            .clone()
    }

    /// [`Runtimes::detect`] over these directories.
    pub fn detect_in(dirs: &[PathBuf]) -> Option<Runtimes> {
        let find = |name: &str| dirs.iter().map(|d| d.join(name)).find(|p| is_executable(p));
        let node = find("node");
        let deno = find("deno");
        let javascript = node
            .clone()
            .map(Runtime::plain)
            .or_else(|| deno.clone().map(Runtime::deno));
        let typescript = deno
            .map(Runtime::deno)
            .or_else(|| find("tsx").map(|tsx| tsx_runtime(tsx, node.as_deref())))
            .or_else(|| {
                let node = node?;
                strips_types(&node).then(|| Runtime {
                    program: node,
                    args: vec!["--experimental-strip-types".into(), "--no-warnings".into()],
                })
            });
        let found = Runtimes {
            javascript,
            typescript,
        };
        (found.javascript.is_some() || found.typescript.is_some()).then_some(found)
    }

    /// The runtime for `language`, if one was found.
    pub fn get(&self, language: Language) -> Option<&Runtime> {
        match language {
            Language::Javascript => self.javascript.as_ref(),
            Language::Typescript => self.typescript.as_ref(),
        }
    }
}

/// tsx as node's loader (`node --import …/tsx/dist/loader.mjs`), where
/// its files are beside the `tsx` found: its own command line listens on
/// a local socket to relay signals, which the sandbox refuses. Otherwise
/// the `tsx` command itself, for a run the sandbox does not confine.
fn tsx_runtime(tsx: PathBuf, node: Option<&Path>) -> Runtime {
    let loader = std::fs::canonicalize(&tsx)
        .ok()
        .and_then(|cli| Some(cli.parent()?.join("loader.mjs")))
        .filter(|l| l.is_file());
    match (node, loader) {
        (Some(node), Some(loader)) => Runtime {
            program: node.to_path_buf(),
            args: vec!["--import".into(), file_url(&loader), "--no-warnings".into()],
        },
        _ => Runtime::plain(tsx),
    }
}

/// `path` as a `file://` URL, with what a URL cannot hold escaped.
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' | ' ' | '#' | '?' | '"' => url.push_str(&format!("%{:02X}", c as u32)),
            c => url.push(c),
        }
    }
    url
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether this node strips TypeScript types itself.
fn strips_types(node: &Path) -> bool {
    let Ok(out) = Command::new(node)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
    else {
        return false;
    };
    parse_version(&String::from_utf8_lossy(&out.stdout)).is_some_and(|v| v >= STRIP_TYPES_SINCE)
}

/// `v22.6.0` → (22, 6).
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let mut parts = text.trim().trim_start_matches('v').split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_compare() {
        assert_eq!(parse_version("v20.20.2\n"), Some((20, 20)));
        assert_eq!(parse_version("v22.6.0"), Some((22, 6)));
        assert_eq!(parse_version("nonsense"), None);
        assert!(parse_version("v20.20.2").is_some_and(|v| v < STRIP_TYPES_SINCE));
        assert!(parse_version("v23.1.0").is_some_and(|v| v >= STRIP_TYPES_SINCE));
    }

    #[test]
    fn file_urls_escape_what_a_url_cannot_hold() {
        assert_eq!(
            file_url(Path::new("/a b/50%#x?.mjs")),
            "file:///a%20b/50%25%23x%3F.mjs"
        );
    }

    #[test]
    fn nothing_on_path_means_no_tool() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Runtimes::detect_in(&[dir.path().to_path_buf()]), None);
    }

    #[test]
    fn tsx_serves_typescript_and_node_javascript() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        for name in ["node", "tsx"] {
            let p = dir.path().join(name);
            std::fs::write(&p, "#!/bin/sh\necho v20.0.0\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let found = Runtimes::detect_in(&[dir.path().to_path_buf()]).unwrap();
        assert_eq!(found.get(Language::Javascript).unwrap().name(), "node");
        assert_eq!(found.get(Language::Typescript).unwrap().name(), "tsx");
    }
}
