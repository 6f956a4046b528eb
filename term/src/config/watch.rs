//! Live reload: watch the config file's directory (editors replace files
//! rather than write them in place) and re-parse after a short quiet period.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{RecursiveMode, Watcher as _};

use super::{Config, ConfigError, Loaded};

/// Editors often write a file in several steps; wait for this much quiet
/// before reading it, well inside the one-second promise.
const DEBOUNCE: Duration = Duration::from_millis(100);
/// A file that never stops changing is read anyway after this long.
const MAX_SETTLE: Duration = Duration::from_millis(500);

/// Watches one config file until dropped.
///
/// Dropping stops the watch without waiting: the reading thread ends on its
/// own once notify's thread lets go of the channel, and that thread first
/// removes its inotify watch, which waits for a kernel grace period (up to
/// 20 ms measured here), time the window's exit has no reason to spend.
pub struct ConfigWatcher {
    _watcher: notify::RecommendedWatcher,
}

impl ConfigWatcher {
    /// Call `on_change` with the re-parsed config (or why it is unusable)
    /// whenever `path`'s content changes.
    pub fn start(
        path: PathBuf,
        on_change: impl Fn(Result<Loaded, ConfigError>) + Send + 'static,
    ) -> notify::Result<Self> {
        let dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        // Read before watching, so a change racing with start-up is seen.
        let mut last_text = std::fs::read_to_string(&path).ok();
        let (tx, rx) = crossbeam_channel::unbounded::<notify::Result<notify::Event>>();
        let mut watcher = notify::recommended_watcher(tx)?;
        watcher.watch(&dir, RecursiveMode::NonRecursive)?;
        let file_name = path.file_name().map(ToOwned::to_owned);
        std::thread::Builder::new()
            .name("koi-config-watch".into())
            .spawn(move || {
                // Only content and name changes; our own reads raise access
                // events that must not trigger another read.
                let concerns_us = |event: &notify::Result<notify::Event>| match event {
                    Ok(event) => {
                        !matches!(event.kind, notify::EventKind::Access(_))
                            && event
                                .paths
                                .iter()
                                .any(|p| p.file_name() == file_name.as_deref())
                    }
                    Err(_) => false,
                };
                while let Ok(event) = rx.recv() {
                    if !concerns_us(&event) {
                        continue;
                    }
                    // Let the burst settle: wait until our file has been quiet
                    // for DEBOUNCE (other files' events do not count), at
                    // most MAX_SETTLE in all.
                    let start = std::time::Instant::now();
                    let mut quiet_from = start;
                    loop {
                        let deadline = (quiet_from + DEBOUNCE).min(start + MAX_SETTLE);
                        match rx.recv_deadline(deadline) {
                            Ok(event) if concerns_us(&event) => {
                                quiet_from = std::time::Instant::now()
                            }
                            Ok(_) => {}
                            Err(_) => break,
                        }
                    }
                    let text = std::fs::read_to_string(&path).ok();
                    if text == last_text {
                        continue;
                    }
                    last_text = text;
                    on_change(Config::load(&path));
                }
            })?;
        Ok(Self { _watcher: watcher })
    }
}
