//! Live reload: watch the config file's directory (editors replace files
//! rather than write them in place), and the directories of the theme
//! files it names, and re-parse after a short quiet period.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::Duration;

use notify::{RecursiveMode, Watcher as _};
use parking_lot::Mutex;

use super::{Config, ConfigError, Loaded};

/// Editors often write a file in several steps; wait for this much quiet
/// before reading it, well inside the one-second promise.
const DEBOUNCE: Duration = Duration::from_millis(100);
/// A file that never stops changing is read anyway after this long.
const MAX_SETTLE: Duration = Duration::from_millis(500);

/// Watches one config file (and its theme files) until dropped.
///
/// Dropping stops the watch without waiting: the reading thread ends on its
/// own once notify's thread lets go of the channel, and that thread first
/// removes its inotify watch, which waits for a kernel grace period (up to
/// 20 ms measured here), time the window's exit has no reason to spend.
/// The reading thread holds the watcher only weakly (to add the
/// directories of theme files named later), so the drop is what ends it.
pub struct ConfigWatcher {
    _watcher: Arc<Mutex<notify::RecommendedWatcher>>,
}

/// The files whose content makes the config: the config itself, then the
/// theme files it names.
struct Files {
    config: PathBuf,
    themes: Vec<PathBuf>,
    /// Each file's text when last read (`None`: unreadable).
    texts: Vec<Option<String>>,
    /// The directories being watched.
    dirs: Vec<PathBuf>,
}

fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

impl Files {
    fn read(config: &Path) -> Self {
        let config_text = std::fs::read_to_string(config).ok();
        let themes = config_text.as_deref().map_or_else(Vec::new, |text| {
            crate::theme::files_named(text, config.parent())
        });
        let texts = std::iter::once(config_text)
            .chain(themes.iter().map(|p| std::fs::read_to_string(p).ok()))
            .collect();
        Self {
            config: config.to_owned(),
            themes,
            texts,
            dirs: Vec::new(),
        }
    }

    /// Whether a notify event is about one of these files (by name: the
    /// directories are watched whole, and a false match costs one read).
    fn concerns(&self, event: &notify::Event) -> bool {
        !matches!(event.kind, notify::EventKind::Access(_))
            && event.paths.iter().any(|p| {
                std::iter::once(&self.config)
                    .chain(&self.themes)
                    .any(|f| p.file_name() == f.file_name())
            })
    }

    /// Watch the directories of every file not watched yet. Only the
    /// config's own directory must be watchable: a theme file's missing
    /// directory is tried again after the next change.
    fn watch_dirs(&mut self, watcher: &mut notify::RecommendedWatcher) -> notify::Result<()> {
        let config_dir = dir_of(&self.config);
        let wanted: Vec<PathBuf> = std::iter::once(&self.config)
            .chain(&self.themes)
            .map(|f| dir_of(f))
            .collect();
        for dir in wanted {
            if self.dirs.contains(&dir) {
                continue;
            }
            match watcher.watch(&dir, RecursiveMode::NonRecursive) {
                Ok(()) => self.dirs.push(dir),
                Err(e) if dir == config_dir => return Err(e),
                Err(e) => log::info!("not watching {}: {e}", dir.display()),
            }
        }
        Ok(())
    }
}

impl ConfigWatcher {
    /// Call `on_change` with the re-parsed config (or why it is unusable)
    /// whenever the content of `path` or of a theme file it names changes.
    pub fn start(
        path: PathBuf,
        on_change: impl Fn(Result<Loaded, ConfigError>) + Send + 'static,
    ) -> notify::Result<Self> {
        // Read before watching, so a change racing with start-up is seen.
        let mut files = Files::read(&path);
        let (tx, rx) = crossbeam_channel::unbounded::<notify::Result<notify::Event>>();
        let mut watcher = notify::recommended_watcher(tx)?;
        files.watch_dirs(&mut watcher)?;
        let watcher = Arc::new(Mutex::new(watcher));
        let weak: Weak<Mutex<notify::RecommendedWatcher>> = Arc::downgrade(&watcher);
        std::thread::Builder::new()
            .name("koi-config-watch".into())
            .spawn(move || {
                // Only content and name changes; our own reads raise access
                // events that must not trigger another read.
                let concerns_us = |files: &Files, event: &notify::Result<notify::Event>| {
                    event.as_ref().is_ok_and(|e| files.concerns(e))
                };
                while let Ok(event) = rx.recv() {
                    if !concerns_us(&files, &event) {
                        continue;
                    }
                    // Let the burst settle: wait until our files have been
                    // quiet for DEBOUNCE (other files' events do not
                    // count), at most MAX_SETTLE in all.
                    let start = std::time::Instant::now();
                    let mut quiet_from = start;
                    loop {
                        let deadline = (quiet_from + DEBOUNCE).min(start + MAX_SETTLE);
                        match rx.recv_deadline(deadline) {
                            Ok(event) if concerns_us(&files, &event) => {
                                quiet_from = std::time::Instant::now()
                            }
                            Ok(_) => {}
                            Err(_) => break,
                        }
                    }
                    let mut now = Files::read(&path);
                    if now.texts == files.texts {
                        continue;
                    }
                    now.dirs = std::mem::take(&mut files.dirs);
                    if let Some(watcher) = weak.upgrade() {
                        if let Err(e) = now.watch_dirs(&mut watcher.lock()) {
                            log::info!("not watching the config's directory: {e}");
                        }
                    }
                    files = now;
                    on_change(Config::load(&path));
                }
            })?;
        Ok(Self { _watcher: watcher })
    }
}
