//! Merge conflicts left in megg's shared files (SPEC §11, "Seen, not hidden"): runs of git's
//! conflict markers at line start, outside fenced code. Pure functions over text.

/// The shortest marker git writes (`merge.conflictStyle` and `%L` may make them longer).
const MIN_MARKER: usize = 7;

/// What a marker line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    /// `<<<<<<< ours`: a conflict opens; OURS' lines follow.
    Open,
    /// `||||||| base` (`merge.conflictStyle=diff3` / `zdiff3`): the base's lines follow.
    Base,
    /// `=======`: THEIRS' lines follow.
    Split,
    /// `>>>>>>> theirs`: the conflict closes.
    Close,
}

fn marker(line: &str) -> Option<Marker> {
    let line = line.trim_end_matches(['\n', '\r']);
    let (kind, c) = match line.as_bytes().first()? {
        b'<' => (Marker::Open, '<'),
        b'|' => (Marker::Base, '|'),
        b'=' => (Marker::Split, '='),
        b'>' => (Marker::Close, '>'),
        _ => return None,
    };
    let run = line.len() - line.trim_start_matches(c).len();
    let rest = &line[run..];
    let labelled = kind != Marker::Split && (rest.is_empty() || rest.starts_with(' '));
    (run >= MIN_MARKER && (labelled || (kind == Marker::Split && rest.trim().is_empty())))
        .then_some(kind)
}

/// A fence line (```` ``` ```` or `~~~`, up to three spaces in), opening or closing code.
fn fence(line: &str) -> Option<&str> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let t = &line[indent..];
    if indent > 3 {
        return None;
    }
    ["```", "~~~"].into_iter().find(|f| t.starts_with(f))
}

/// Which side of a conflict a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Outside,
    Ours,
    Base,
    Theirs,
}

/// Each line of `text` (newline kept) with the side it is on; `None` when the markers do not
/// form complete conflicts (then nothing is treated as one).
fn sides(text: &str) -> Option<(Vec<(&str, Side)>, usize)> {
    let mut out = Vec::new();
    let mut side = Side::Outside;
    let mut open_fence: Option<&str> = None;
    let mut hunks = 0;
    for line in text.split_inclusive('\n') {
        if side == Side::Outside {
            if let Some(f) = open_fence {
                if fence(line) == Some(f) {
                    open_fence = None;
                }
                out.push((line, side));
                continue;
            }
            if let Some(f) = fence(line) {
                open_fence = Some(f);
                out.push((line, side));
                continue;
            }
        }
        match (side, marker(line)) {
            (Side::Outside, Some(Marker::Open)) => side = Side::Ours,
            (Side::Ours, Some(Marker::Base)) => side = Side::Base,
            (Side::Ours | Side::Base, Some(Marker::Split)) => side = Side::Theirs,
            (Side::Theirs, Some(Marker::Close)) => {
                side = Side::Outside;
                hunks += 1;
            }
            _ => {
                out.push((line, side));
                continue;
            }
        }
        // A marker line itself belongs to no side.
    }
    (side == Side::Outside).then_some((out, hunks))
}

/// How many complete conflicts `text` holds outside fenced code.
pub fn count(text: &str) -> usize {
    sides(text).map_or(0, |(_, hunks)| hunks)
}

/// `text` with every conflict replaced by OURS' side: what megg loads until it is resolved.
pub fn ours(text: &str) -> String {
    match sides(text) {
        Some((lines, hunks)) if hunks > 0 => lines
            .into_iter()
            .filter(|(_, side)| matches!(side, Side::Outside | Side::Ours))
            .map(|(line, _)| line)
            .collect(),
        _ => text.to_string(),
    }
}

/// OURS' and THEIRS' whole versions of `text` (outside lines in both): what `megg resolve`
/// merges when conflicts were committed and no index stages are left.
pub fn both(text: &str) -> Option<(String, String)> {
    let (lines, hunks) = sides(text)?;
    if hunks == 0 {
        return None;
    }
    let pick = |want: Side| {
        lines
            .iter()
            .filter(|(_, side)| *side == Side::Outside || *side == want)
            .map(|(line, _)| *line)
            .collect::<String>()
    };
    Some((pick(Side::Ours), pick(Side::Theirs)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MERGE: &str = "intro\n<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\noutro\n";

    #[test]
    fn a_merge_conflict_is_counted_and_ours_kept() {
        assert_eq!(count(MERGE), 1);
        assert_eq!(ours(MERGE), "intro\nA\noutro\n");
        assert_eq!(
            both(MERGE),
            Some(("intro\nA\noutro\n".into(), "intro\nB\noutro\n".into()))
        );
    }

    #[test]
    fn diff3_markers_and_longer_runs_are_recognised() {
        let t = "x\n<<<<<<<<< HEAD\nA\n||||||||| base\nO\n=========\nB\n>>>>>>>>> bob\n";
        assert_eq!(count(t), 1);
        assert_eq!(ours(t), "x\nA\n");
        assert_eq!(both(t).unwrap().1, "x\nB\n");
    }

    #[test]
    fn markers_in_fenced_code_are_documentation() {
        let t = "## Gotcha\n```\n<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n```\n";
        assert_eq!(count(t), 0);
        assert_eq!(ours(t), t);
        let tilde = "~~~text\n<<<<<<< a\n=======\n>>>>>>> b\n~~~\n";
        assert_eq!(count(tilde), 0);
    }

    #[test]
    fn short_or_unlabelled_runs_and_incomplete_conflicts_are_not_conflicts() {
        assert_eq!(count("<<<<<< six\n=======\n>>>>>>> x\n"), 0);
        assert_eq!(count("<<<<<<<x\n=======\n>>>>>>> x\n"), 0);
        assert_eq!(count("<<<<<<< ours\nA\n=======\nB\n"), 0);
        assert_eq!(count("======= \n"), 0);
        assert_eq!(ours("<<<<<<< ours\nA\n"), "<<<<<<< ours\nA\n");
    }

    #[test]
    fn crlf_files_and_several_hunks() {
        let t = "<<<<<<< ours\r\nA\r\n=======\r\nB\r\n>>>>>>> theirs\r\nmid\n<<<<<<<\nC\n=======\nD\n>>>>>>>\n";
        assert_eq!(count(t), 2);
        assert_eq!(ours(t), "A\r\nmid\nC\n");
    }
}
