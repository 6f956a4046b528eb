//! `k sessions`: saved conversations with title, age and size.

use std::time::{SystemTime, UNIX_EPOCH};

use ai_chat_engine::session_log::{self, Entry};
use ai_chat_engine::SessionInfo;
use serde::Serialize;

use crate::json_events::tagged_line;

/// Sessions listed without `--all`.
pub const DEFAULT_LIMIT: usize = 20;

/// Longest title shown in the table.
const TITLE_CHARS: usize = 60;

/// One listed session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listed {
    /// Session id (for `--resume`).
    pub id: String,
    /// Generated title, or the first question.
    pub title: String,
    /// Directory it belongs to.
    pub cwd: String,
    /// Last change (RFC 3339).
    pub updated: String,
    /// Seconds since the last change (None when the stamp is unreadable).
    pub age_secs: Option<u64>,
    /// User messages.
    pub turns: usize,
    /// Log file size.
    pub bytes: u64,
    /// Whether it belongs to the current directory.
    pub here: bool,
}

/// Turns the engine's list into rows.
pub fn list(infos: &[SessionInfo], cwd: &str, now_secs: u64) -> Vec<Listed> {
    infos
        .iter()
        .map(|s| Listed {
            id: s.id.clone(),
            title: s.title.clone().unwrap_or_else(|| first_question(s)),
            cwd: s.cwd.clone(),
            updated: s.updated.clone(),
            age_secs: parse_rfc3339(&s.updated).map(|t| now_secs.saturating_sub(t)),
            turns: s.user_messages,
            bytes: std::fs::metadata(&s.path).map(|m| m.len()).unwrap_or(0),
            here: s.cwd == cwd,
        })
        .collect()
}

fn first_question(s: &SessionInfo) -> String {
    let Ok(log) = session_log::read_log(&s.path) else {
        return "(unreadable)".into();
    };
    log.records
        .iter()
        .find_map(|r| match &r.entry {
            Entry::User { text, .. } => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "(empty)".into())
}

/// Seconds since the Unix epoch now.
pub fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` to Unix seconds.
pub fn parse_rfc3339(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || !s.ends_with('Z') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm), March-based years.
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + h * 3600 + mi * 60 + sec).ok()
}

/// `45s`, `12m`, `3h`, `5d`, `7w`.
pub fn age(secs: Option<u64>) -> String {
    match secs {
        None => "?".into(),
        Some(s) if s < 60 => format!("{s}s"),
        Some(s) if s < 3600 => format!("{}m", s / 60),
        Some(s) if s < 86_400 => format!("{}h", s / 3600),
        Some(s) if s < 14 * 86_400 => format!("{}d", s / 86_400),
        Some(s) => format!("{}w", s / (7 * 86_400)),
    }
}

/// `812 B`, `14 KB`, `3.2 MB`.
pub fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{} KB", b / 1024),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

fn short(s: &str, n: usize) -> String {
    let one: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one.chars().count() <= n {
        one
    } else {
        let mut t: String = one.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The table for people (`*` marks this directory's sessions).
pub fn to_text(rows: &[Listed], hidden: usize) -> String {
    if rows.is_empty() {
        return "no saved conversations yet\n".into();
    }
    let idw = rows.iter().map(|r| r.id.len()).max().unwrap_or(2).max(2);
    let mut s = format!(
        "  {:idw$}  {:>4}  {:>5}  {:>7}  TITLE\n",
        "ID", "AGE", "TURNS", "SIZE"
    );
    for r in rows {
        let mark = if r.here { '*' } else { ' ' };
        let mut title = short(&r.title, TITLE_CHARS);
        if !r.here {
            title.push_str(&format!("  [{}]", short(&r.cwd, 40)));
        }
        s.push_str(&format!(
            "{mark} {:idw$}  {:>4}  {:>5}  {:>7}  {title}\n",
            r.id,
            age(r.age_secs),
            r.turns,
            size(r.bytes)
        ));
    }
    if hidden > 0 {
        s.push_str(&format!("… {hidden} older (k sessions --all)\n"));
    }
    s.push_str("* = this directory · continue one with: k --resume ID\n");
    s
}

/// One JSON line per session.
pub fn to_json_lines(rows: &[Listed]) -> String {
    let mut s = String::new();
    for r in rows {
        s.push_str(&tagged_line("session_info", "session", r));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_engine_timestamps() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(parse_rfc3339("2000-03-01T00:00:01Z"), Some(951_868_801));
        assert_eq!(
            parse_rfc3339("2026-11-30T04:49:27.123Z"),
            Some(1_796_014_167)
        );
        assert_eq!(parse_rfc3339("garbage"), None);
        assert_eq!(parse_rfc3339("2026-13-30T04:49:27.123Z"), None);
    }

    #[test]
    fn ages_and_sizes() {
        assert_eq!(age(Some(5)), "5s");
        assert_eq!(age(Some(7200)), "2h");
        assert_eq!(age(None), "?");
        assert_eq!(size(2048), "2 KB");
    }
}
