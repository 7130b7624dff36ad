//! What is asked of git about cited paths, and what it answers (SPEC §17): the plain values
//! [`super::citations`] takes and gives.

/// One path asked about: `path` relative to the top of the work tree (`/`-separated, a file or
/// a directory), and the first second after the entry's day (UTC).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ask {
    pub path: String,
    pub since: i64,
}

/// What git says about one [`Ask`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathHistory {
    /// The path is in HEAD's tree.
    pub at_head: bool,
    /// It is at HEAD, or a commit walked changed it: it exists or existed in the history.
    pub existed: bool,
    /// The commits after the day that changed it, newest first (at most [`MAX_TOUCHES`], and
    /// only when asked for; `count` has them all) — for a path moved and then changed, those
    /// after the move at its new path (`moved_count`).
    pub touches: Vec<Touch>,
    /// How many commits after the day changed it (its move included).
    pub count: usize,
    /// Not at HEAD, and renamed (possibly more than once), from the entry's day on, to this
    /// path, which is.
    pub new_path: Option<String>,
    /// With `new_path`: how many commits after the day and after the move changed the new path.
    pub moved_count: usize,
    /// The walk stopped at its cap before it had seen every commit that counts (or, for a path
    /// not at HEAD and never seen, the whole history): the counts are lower bounds.
    pub capped: bool,
}

impl PathHistory {
    /// Whether the path is a citation at all: it exists or existed. A path no commit in reach
    /// ever had is not one.
    pub fn is_citation(&self) -> bool {
        self.at_head || self.existed
    }
}

/// One commit that touched a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    pub commit: String,
    pub time: i64,
    pub summary: String,
}

/// Most touching commits kept per path (what `maintain --check` lists).
pub const MAX_TOUCHES: usize = 20;
