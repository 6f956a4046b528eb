//! koi's log: lines on stderr, `koi: warning: …`, the way config
//! warnings are printed.
//!
//! koi's own crates log at the level `KOI_LOG` names (`off`, `error`,
//! `warn`, `info`, `debug`, `trace`; `warn` when unset), so a frame that
//! failed, a font that was not found or a refused picture says so. Other
//! crates (wgpu and its drivers, winit) log their errors only: their
//! warnings are about the driver, not about what the user asked for.

use log::{Level, LevelFilter, Log, Metadata, Record};

/// The environment variable that sets the level of koi's own messages.
pub const ENV: &str = "KOI_LOG";

/// The crates whose messages are koi's own (their log targets begin
/// with the crate's name).
const OWN_CRATES: [&str; 10] = [
    "koi",
    "term",
    "koi_terminal",
    "render",
    "render_types",
    "koi_markdown",
    "koi_protocol",
    "ai_chat_engine",
    "ai_tools",
    "ai_mcp",
];

struct StderrLog {
    own: LevelFilter,
}

impl StderrLog {
    fn level_for(&self, target: &str) -> LevelFilter {
        let krate = target.split("::").next().unwrap_or(target);
        if OWN_CRATES.contains(&krate) {
            self.own
        } else {
            LevelFilter::Error
        }
    }
}

impl Log for StderrLog {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= self.level_for(metadata.target())
    }

    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            eprintln!("koi: {}: {}", label(record.level()), record.args());
        }
    }

    fn flush(&self) {}
}

fn label(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warn => "warning",
        Level::Info => "info",
        Level::Debug => "debug",
        Level::Trace => "trace",
    }
}

/// The level `value` (of [`ENV`]) names; `Err` with the reason for a
/// value that names none.
pub fn parse_level(value: &str) -> Result<LevelFilter, String> {
    value.trim().parse().map_err(|_| {
        format!("{ENV}={value:?} is not a level (off, error, warn, info, debug, trace); using warn")
    })
}

/// Sends koi's log to stderr, at [`ENV`]'s level. Call once, first thing.
pub fn init() {
    let own = match std::env::var(ENV) {
        Ok(value) => parse_level(&value).unwrap_or_else(|why| {
            eprintln!("koi: warning: {why}");
            LevelFilter::Warn
        }),
        Err(_) => LevelFilter::Warn,
    };
    // One logger for the life of the process.
    if log::set_logger(Box::leak(Box::new(StderrLog { own }))).is_ok() {
        log::set_max_level(own.max(LevelFilter::Error));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_crates_log_at_the_chosen_level_and_others_only_errors() {
        let log = StderrLog {
            own: LevelFilter::Info,
        };
        let at = |target: &str, level: Level| {
            log.enabled(&Metadata::builder().target(target).level(level).build())
        };
        assert!(at("koi_terminal::session::reader", Level::Warn));
        assert!(at("render", Level::Info));
        assert!(!at("term::app", Level::Debug));
        assert!(at("wgpu_hal::vulkan", Level::Error));
        assert!(!at("wgpu_hal::vulkan", Level::Warn));
        // A crate whose name only begins like one of koi's is not koi's.
        assert!(!at("rendering_lib", Level::Warn));
    }

    #[test]
    fn levels_parse_and_a_wrong_one_says_which_are_right() {
        assert_eq!(parse_level("debug"), Ok(LevelFilter::Debug));
        assert_eq!(parse_level(" OFF "), Ok(LevelFilter::Off));
        let why = parse_level("loud").unwrap_err();
        assert!(why.contains("KOI_LOG") && why.contains("trace"), "{why}");
    }
}
