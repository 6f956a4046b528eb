//! Where koi keeps its files: the config dir (`koi.toml`, identity
//! files) and the data dir (sessions, memory). A leaf: everything may
//! ask it, it asks nothing of the crate.

use std::path::PathBuf;

/// koi's config directory (`$XDG_CONFIG_HOME/koi` or the platform's).
pub fn config_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("koi"))
}

/// koi's data directory (`$XDG_DATA_HOME/koi` or the platform's).
pub fn data_dir() -> Option<PathBuf> {
    dirs::data_dir().map(|d| d.join("koi"))
}

/// `~/.config/koi/koi.toml` (platform equivalent).
pub fn config_path() -> Option<PathBuf> {
    config_dir().map(|d| d.join("koi.toml"))
}
