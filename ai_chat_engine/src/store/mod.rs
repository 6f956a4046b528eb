//! What outlives a process: the append-only session log, the recovery
//! planner that reads it after a crash, the table of saved sessions,
//! forks, and a saved conversation as a front end shows it.

pub mod fork;
pub mod recovery;
pub mod session_list;
pub mod session_log;
pub mod transcript;
