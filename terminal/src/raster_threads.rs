//! How many threads a software rasteriser may take.
//!
//! Mesa's CPU drivers (lavapipe for Vulkan, llvmpipe for GL) rasterise on
//! one thread per core unless `LP_NUM_THREADS` says otherwise. During a
//! flood their threads then take the core the PTY reader parses on, and a
//! frame slows the parser far more than it costs: on a 2-core machine a
//! dense 16 MB flood took 1.4× as long as with one raster thread. koi
//! leaves one core to the parser. Where that leaves one raster thread,
//! koi asks for none: lavapipe's queue thread, which runs the frame and
//! waits for its pixels anyway, then rasterises it too. A keystroke's
//! frame is not handed to a raster thread and back, and on a busy machine
//! each hand-off can wait a millisecond or more for a core: the woken
//! thread queues behind a busy process on the core it last ran on while
//! the other core idles (the kernel keeps a thread that just ran where its
//! cache is). keylat on 2 cores, 5 interleaved rounds of 40: medians
//! 4.7–4.9 ms against 5.0–6.2. A value the user set wins, and shells koi
//! starts never see the one koi chose.

use std::sync::atomic::{AtomicBool, Ordering};

/// Mesa's variable for the number of rasteriser threads.
pub const VAR: &str = "LP_NUM_THREADS";

/// Whether koi set [`VAR`] itself (and must keep it from its children).
static CHOSEN_BY_KOI: AtomicBool = AtomicBool::new(false);

/// Sets [`VAR`] to all cores but one (0, on the drawing thread, for one),
/// unless it is set. Call it first in
/// `main`, before any thread starts: the environment is not safe to change
/// while another thread may read it.
pub fn reserve_a_core_for_the_parser() {
    if std::env::var_os(VAR).is_some() {
        return;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::env::set_var(VAR, threads_for(cores).to_string());
    CHOSEN_BY_KOI.store(true, Ordering::Relaxed);
}

/// The rasteriser threads for a machine with `cores` cores; 0 is the
/// thread that submits the frame.
fn threads_for(cores: usize) -> usize {
    match cores.saturating_sub(1) {
        0 | 1 => 0,
        n => n,
    }
}

/// Keeps the value koi chose from a child's environment.
pub(crate) fn scrub(cmd: &mut portable_pty::CommandBuilder) {
    if CHOSEN_BY_KOI.load(Ordering::Relaxed) {
        cmd.env_remove(VAR);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_core_is_left_to_the_parser_and_a_lone_raster_thread_is_the_drawing_one() {
        assert_eq!(threads_for(0), 0);
        assert_eq!(threads_for(1), 0);
        assert_eq!(threads_for(2), 0);
        assert_eq!(threads_for(3), 2);
        assert_eq!(threads_for(16), 15);
    }
}
