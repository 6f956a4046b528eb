//! The standard tools, one module per family.

pub mod bounded_file;
pub mod fs_common;
pub mod fs_list;
pub mod fs_patch;
pub mod fs_read;
pub mod fs_write;
pub mod grep;
pub mod memory;
pub mod project;
pub mod run_code;
pub mod shell;
pub mod walk;
pub mod web;
pub mod web_search;

use crate::tool::Tool;

/// Every standard tool, in the order they are advertised.
pub fn standard() -> Vec<Box<dyn Tool>> {
    vec![
        Box::new(fs_read::FsRead),
        Box::new(fs_list::FsList),
        Box::new(fs_list::FileTree),
        Box::new(project::ProjectSummary),
        Box::new(grep::GrepSearch),
        Box::new(fs_write::FsWrite),
        Box::new(fs_patch::FsPatch),
        Box::new(fs_write::FsDelete),
        Box::new(shell::ShellExec),
        Box::new(shell::ShellBg),
        Box::new(shell::ShellPoll),
        Box::new(shell::ShellKill),
        Box::new(web::WebFetch),
        Box::new(web::HttpRequest),
        Box::new(memory::MemoryRead),
    ]
}
