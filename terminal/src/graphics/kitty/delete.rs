//! `a=d`: deleting placements (lower-case `d=`) and, with upper case, the
//! images left without one.

use std::collections::HashSet;

use alacritty_terminal::event::EventListener;
use alacritty_terminal::term::Term;

use super::command::Command;
use crate::graphics::anchor;
use crate::graphics::store::Store;

/// Runs a delete command. kitty answers none.
pub(super) fn run<T: EventListener>(store: &mut Store, term: &Term<T>, cmd: &Command) {
    let what = if cmd.delete == 0 { b'a' } else { cmd.delete };
    let free = what.is_ascii_uppercase();
    let marks = anchor::on_screen(term);
    let cursor = term.grid().cursor.point;
    let (cursor_row, cursor_col) = (cursor.line.0.max(0) as usize, cursor.column.0);
    // Keys of placements with a cell on screen matching `hit` (kitty's
    // cell arguments are 1-based).
    let at = |hit: &dyn Fn(usize, usize) -> bool| -> HashSet<u64> {
        marks
            .iter()
            .filter(|(row, col, _)| hit(*row, *col))
            .map(|(_, _, m)| m.key)
            .collect()
    };
    let x = cmd.x as usize;
    let y = cmd.y as usize;
    let touched = match what.to_ascii_lowercase() {
        b'a' => {
            let keys = at(&|_, _| true);
            store.remove_placements(|key, _| keys.contains(&key))
        }
        which @ (b'i' | b'n') => {
            // By the client's image id, or by the image number it chose.
            let found = if which == b'i' {
                store.by_client_id(cmd.id)
            } else {
                store.by_number(cmd.number)
            };
            let Some(image) = found else {
                return;
            };
            let pid = cmd.placement_id;
            let mut touched = store
                .remove_placements(|_, p| p.image == image && (pid == 0 || p.client_id == pid));
            touched.insert(image);
            touched
        }
        b'c' => {
            let keys = at(&|r, c| r == cursor_row && c == cursor_col);
            store.remove_placements(|key, _| keys.contains(&key))
        }
        b'p' => {
            let keys = at(&|r, c| r + 1 == y && c + 1 == x);
            store.remove_placements(|key, _| keys.contains(&key))
        }
        b'q' => {
            let keys = at(&|r, c| r + 1 == y && c + 1 == x);
            let z = cmd.z;
            store.remove_placements(|key, p| keys.contains(&key) && p.z == z)
        }
        b'x' => {
            let keys = at(&|_, c| c + 1 == x);
            store.remove_placements(|key, _| keys.contains(&key))
        }
        b'y' => {
            let keys = at(&|r, _| r + 1 == y);
            store.remove_placements(|key, _| keys.contains(&key))
        }
        b'z' => {
            let z = cmd.z;
            let keys = at(&|_, _| true);
            store.remove_placements(|key, p| keys.contains(&key) && p.z == z)
        }
        b'r' => {
            let (low, high) = (cmd.x, cmd.y);
            let images: Vec<u64> = store
                .image_keys()
                .into_iter()
                .filter(|&k| {
                    store.image(k).is_some_and(|i| {
                        i.client_id >= low && i.client_id <= high && i.client_id != 0
                    })
                })
                .collect();
            let set: HashSet<u64> = images.iter().copied().collect();
            let mut touched = store.remove_placements(|_, p| set.contains(&p.image));
            touched.extend(images);
            touched
        }
        // Animation frames (f/F) are not stored: nothing to delete.
        _ => return,
    };
    if free {
        for image in touched {
            if !store.is_placed(image) {
                store.remove_image(image);
            }
        }
    }
}
