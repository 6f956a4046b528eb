//! Shell integration that needs no rc edit: when koi starts bash, zsh or
//! fish as the shell, it points the shell's own startup hook at koi's
//! scripts, which load the user's files first and then koi's marks
//! (`assets/shell/koi.*`).
//!
//! - zsh: `ZDOTDIR` names koi's directory; its `.zshenv` puts the user's
//!   `ZDOTDIR` back, so zsh goes on to read the user's own files.
//! - bash (non-login): `--rcfile` names koi's file, which reads `~/.bashrc`.
//! - bash (login): a login shell ignores `--rcfile`, so bash starts in
//!   POSIX mode with `ENV` naming koi's file, the one startup file that
//!   mode reads; the file leaves POSIX mode and reads the login files.
//! - fish: koi's data dir goes first in `XDG_DATA_DIRS`; fish reads its
//!   `fish/vendor_conf.d/*.fish` before the user's `config.fish`.
//!
//! Any argument beyond "login" and "interactive" (`-c`, `--norc`, a
//! script) means the user wants that shell as given: nothing is injected.

mod files;

use std::path::{Path, PathBuf};

pub use files::{install, runtime_root, IntegrationError};

/// The shells koi knows how to integrate with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShellKind {
    Bash,
    Zsh,
    Fish,
}

impl ShellKind {
    /// The kind of shell a program path names (`/usr/bin/zsh`, `-bash`).
    pub fn detect(program: &str) -> Option<ShellKind> {
        let name = Path::new(program).file_name()?.to_str()?;
        match name.trim_start_matches('-') {
            "bash" => Some(ShellKind::Bash),
            "zsh" => Some(ShellKind::Zsh),
            "fish" => Some(ShellKind::Fish),
            _ => None,
        }
    }

    /// The name the shell goes by (`$KOI_SHELL`, the suggestion's context).
    pub fn as_str(self) -> &'static str {
        match self {
            ShellKind::Bash => "bash",
            ShellKind::Zsh => "zsh",
            ShellKind::Fish => "fish",
        }
    }
}

/// Where koi's scripts live inside the installed directory, and what.
pub(crate) const FILES: &[(&str, &str)] = &[
    ("koi.bash", include_str!("../../../assets/shell/koi.bash")),
    ("koi.zsh", include_str!("../../../assets/shell/koi.zsh")),
    ("koi.fish", include_str!("../../../assets/shell/koi.fish")),
    (
        BASH_RCFILE,
        include_str!("../../../assets/shell/inject/bashrc.bash"),
    ),
    (
        BASH_LOGIN_ENV,
        include_str!("../../../assets/shell/inject/bash_login.bash"),
    ),
    (
        ZSH_ZSHENV,
        include_str!("../../../assets/shell/inject/zshenv.zsh"),
    ),
    (
        FISH_VENDOR_CONF,
        include_str!("../../../assets/shell/inject/vendor_conf.fish"),
    ),
];

const BASH_RCFILE: &str = "bash/rc.bash";
const BASH_LOGIN_ENV: &str = "bash/login.bash";
const ZSH_DIR: &str = "zsh";
const ZSH_ZSHENV: &str = "zsh/.zshenv";
const FISH_DATA_DIR: &str = "fish";
const FISH_VENDOR_CONF: &str = "fish/fish/vendor_conf.d/koi.fish";

/// The line prefix that asks for a suggestion (`[shell] suggest_prefix`).
pub const PREFIX_ENV: &str = "KOI_SUGGEST_PREFIX";

/// The variables koi's scripts read to put the user's values back.
const RESTORE_ZDOTDIR: &str = "KOI_ZSH_RESTORE_ZDOTDIR";
const RESTORE_ENV: &str = "KOI_BASH_RESTORE_ENV";
const RESTORE_XDG_DATA_DIRS: &str = "KOI_FISH_RESTORE_XDG_DATA_DIRS";

/// What the XDG base directory spec says `XDG_DATA_DIRS` means when it
/// is unset; fish must still find the vendor files packages installed.
const XDG_DATA_DIRS_DEFAULT: &str = "/usr/local/share:/usr/share";

/// The shell's command line and environment with koi's hook in place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub shell: ShellKind,
    pub argv: Vec<String>,
    /// Set in the child after everything else.
    pub env: Vec<(String, String)>,
}

/// How `argv` would start: a login shell, or `None` when it does more
/// than start an interactive shell.
fn login_only(args: &[String]) -> Option<bool> {
    let mut login = false;
    for arg in args {
        match arg.as_str() {
            "-l" | "--login" => login = true,
            "-i" | "--interactive" => {}
            _ => return None,
        }
    }
    Some(login)
}

/// `argv` with koi's hook, given the directory [`install`] wrote, or
/// `None` when `argv` is not a shell koi integrates with as it stands.
/// `var` reads the environment the child would get.
pub fn plan(argv: &[String], dir: &Path, var: &dyn Fn(&str) -> Option<String>) -> Option<Launch> {
    let (program, args) = argv.split_first()?;
    let shell = ShellKind::detect(program)?;
    let login = login_only(args)? || program.starts_with('-');
    let path = |rel: &str| dir.join(rel).to_string_lossy().into_owned();
    let mut env = Vec::new();
    let mut restore = |name: &str, restore_as: &str| {
        if let Some(value) = var(name) {
            env.push((restore_as.to_owned(), value));
        }
    };
    let argv = match shell {
        ShellKind::Bash if login => {
            restore("ENV", RESTORE_ENV);
            env.push(("ENV".to_owned(), path(BASH_LOGIN_ENV)));
            // `-l` stays: `shopt login_shell`, `logout` and ~/.bash_logout
            // work as in any login shell.
            vec![program.clone(), "--posix".to_owned(), "-l".to_owned()]
        }
        ShellKind::Bash => {
            // Long options go before bash's one-letter ones.
            let mut v = vec![program.clone(), "--rcfile".to_owned(), path(BASH_RCFILE)];
            v.extend(args.iter().cloned());
            v
        }
        ShellKind::Zsh => {
            restore("ZDOTDIR", RESTORE_ZDOTDIR);
            env.push(("ZDOTDIR".to_owned(), path(ZSH_DIR)));
            argv.to_vec()
        }
        ShellKind::Fish => {
            let user = var("XDG_DATA_DIRS");
            restore("XDG_DATA_DIRS", RESTORE_XDG_DATA_DIRS);
            let rest = user
                .filter(|dirs| !dirs.is_empty())
                .unwrap_or_else(|| XDG_DATA_DIRS_DEFAULT.to_owned());
            env.push((
                "XDG_DATA_DIRS".to_owned(),
                format!("{}:{rest}", path(FISH_DATA_DIR)),
            ));
            argv.to_vec()
        }
    };
    Some(Launch { shell, argv, env })
}

/// Installs the scripts (when needed) and plans `argv`'s launch; `None`
/// when there is nothing to inject. A failure to install is logged and
/// the shell starts plain: a terminal without marks beats no terminal.
pub fn prepare(argv: &[String], var: &dyn Fn(&str) -> Option<String>) -> Option<Launch> {
    ShellKind::detect(argv.first()?)?;
    let dir = match install(&runtime_root()) {
        Ok(dir) => dir,
        Err(e) => {
            log::warn!("shell integration not injected: {e}");
            return None;
        }
    };
    plan(argv, &dir, var)
}

/// The directory [`install`] writes under `root`, per koi version so two
/// versions running at once do not rewrite each other's scripts.
fn versioned(root: &Path) -> PathBuf {
    root.join("shell-integration")
        .join(env!("CARGO_PKG_VERSION"))
}

#[cfg(test)]
mod tests;
