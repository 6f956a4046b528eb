//! `k sessions`: saved conversations with title, age and size.

pub use ai_chat_engine::store::session_list::{list, table, to_text, Listed, DEFAULT_LIMIT};

use koi_protocol::tagged_line;

/// One JSON line per session.
pub fn to_json_lines(rows: &[Listed]) -> String {
    let mut s = String::new();
    for r in rows {
        s.push_str(&tagged_line("session_info", "session", r));
        s.push('\n');
    }
    s
}
