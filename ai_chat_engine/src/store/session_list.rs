//! Saved sessions as a table for people: title, age, turns and size. One
//! listing serves `k sessions`, k's `/sessions` and the overlay's.

use serde::Serialize;

use crate::store::session_log::{self, Entry, SessionInfo};
use crate::time::parse_rfc3339;

/// Sessions listed unless the user asks for all of them.
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

/// The first `limit` of `infos` (most recent first) as [`to_text`]'s
/// table, ages counted from now.
pub fn table(infos: &[SessionInfo], cwd: &str, limit: usize, more: &str, resume: &str) -> String {
    let shown = &infos[..infos.len().min(limit)];
    let rows = list(shown, cwd, crate::time::now_secs());
    to_text(&rows, infos.len() - shown.len(), more, resume)
}

/// The table for people (`*` marks this directory's sessions). `resume`
/// says how to continue one (`k --resume ID`, `/resume ID`); `hidden`
/// counts rows left out, and `more` says how to see them.
pub fn to_text(rows: &[Listed], hidden: usize, more: &str, resume: &str) -> String {
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
        s.push_str(&format!("… {hidden} older ({more})\n"));
    }
    s.push_str(&format!(
        "* = this directory · continue one with: {resume}\n"
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_and_sizes() {
        assert_eq!(age(Some(5)), "5s");
        assert_eq!(age(Some(7200)), "2h");
        assert_eq!(age(None), "?");
        assert_eq!(size(2048), "2 KB");
    }

    #[test]
    fn table_marks_this_directory_and_says_how_to_resume() {
        let row = |id: &str, cwd: &str| Listed {
            id: id.into(),
            title: "why\ndoes it fail".into(),
            cwd: cwd.into(),
            updated: "2026-11-30T04:49:27.123Z".into(),
            age_secs: Some(7200),
            turns: 3,
            bytes: 2048,
            here: cwd == "/here",
        };
        let text = to_text(
            &[row("a1", "/here"), row("b2", "/else")],
            4,
            "--all",
            "/resume ID",
        );
        assert!(text.contains("* a1"), "{text}");
        assert!(text.contains("why does it fail"), "{text}");
        assert!(text.contains("[/else]"), "{text}");
        assert!(text.contains("… 4 older (--all)"), "{text}");
        assert!(text.ends_with("continue one with: /resume ID\n"), "{text}");
        assert_eq!(to_text(&[], 0, "", ""), "no saved conversations yet\n");
    }
}
