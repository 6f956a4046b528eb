//! Where the tab bar sits and what it leaves the panes: the window's top
//! or bottom row (`[tabs] position`), while it is shown (`[tabs] bar`).

use render::CellRect;

use crate::config::{TabBarMode, TabBarPosition, TabsConfig};

/// The tab bar's settings, as the workspace lays it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BarPlace {
    pub mode: TabBarMode,
    pub position: TabBarPosition,
}

impl From<&TabsConfig> for BarPlace {
    fn from(tabs: &TabsConfig) -> Self {
        Self {
            mode: tabs.bar,
            position: tabs.position,
        }
    }
}

impl BarPlace {
    /// Whether the bar takes a row with `tabs` tabs open.
    pub fn shown(&self, tabs: usize) -> bool {
        match self.mode {
            TabBarMode::Always => true,
            TabBarMode::Never => false,
            TabBarMode::Auto => tabs > 1,
        }
    }

    /// The row the bar takes in a grid `rows` high, when `shown`.
    pub fn row(&self, shown: bool, rows: usize) -> Option<usize> {
        shown.then(|| match self.position {
            TabBarPosition::Top => 0,
            TabBarPosition::Bottom => rows.saturating_sub(1),
        })
    }

    /// The cells the panes share in a `cols × rows` grid: all of it less
    /// the bar's row when `shown` (one row stays for the panes whatever the
    /// window's size).
    pub fn area(&self, shown: bool, cols: usize, rows: usize) -> CellRect {
        let bar = usize::from(shown && rows > 1);
        let row = match self.position {
            TabBarPosition::Top => bar,
            TabBarPosition::Bottom => 0,
        };
        CellRect {
            col: 0,
            row,
            cols,
            rows: rows.saturating_sub(bar).max(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(mode: TabBarMode, position: TabBarPosition) -> BarPlace {
        BarPlace { mode, position }
    }

    #[test]
    fn the_bar_takes_the_top_or_the_bottom_row() {
        let top = place(TabBarMode::Auto, TabBarPosition::Top);
        let bottom = place(TabBarMode::Auto, TabBarPosition::Bottom);
        let rect = |row, rows| CellRect {
            col: 0,
            row,
            cols: 80,
            rows,
        };
        assert!(!top.shown(1) && top.shown(2));
        assert_eq!(top.row(true, 24), Some(0));
        assert_eq!(top.area(true, 80, 24), rect(1, 23));
        assert_eq!(bottom.row(true, 24), Some(23));
        assert_eq!(bottom.area(true, 80, 24), rect(0, 23));
        // Hidden: no row, the panes have it all.
        assert_eq!(bottom.row(false, 24), None);
        assert_eq!(bottom.area(false, 80, 24), rect(0, 24));
        assert_eq!(top.area(false, 80, 24), rect(0, 24));
    }

    #[test]
    fn modes_and_a_one_row_window() {
        let always = place(TabBarMode::Always, TabBarPosition::Bottom);
        let never = place(TabBarMode::Never, TabBarPosition::Top);
        assert!(always.shown(1));
        assert!(!never.shown(5));
        // One row: the panes keep it (the bar is drawn over them).
        let tiny = always.area(true, 10, 1);
        assert_eq!((tiny.row, tiny.rows), (0, 1));
        let tiny = place(TabBarMode::Always, TabBarPosition::Top).area(true, 10, 1);
        assert_eq!((tiny.row, tiny.rows), (0, 1));
    }
}
