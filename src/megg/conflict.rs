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
    let rest = line.trim_start_matches(c);
    let run = line.len() - rest.len();
    let labelled = kind != Marker::Split && (rest.is_empty() || rest.starts_with(' '));
    (run >= MIN_MARKER && (labelled || (kind == Marker::Split && rest.trim().is_empty())))
        .then_some(kind)
}

/// A fence line (CommonMark: three or more backticks or tildes, up to three spaces in): its
/// character, its run length, and whether anything but whitespace follows (an info string:
/// such a line can open a fence but never close one).
fn fence(line: &str) -> Option<(u8, usize, bool)> {
    let line = line.trim_end_matches(['\n', '\r']);
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = *t.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let rest = t.trim_start_matches(c as char);
    let run = t.len() - rest.len();
    (run >= 3).then(|| (c, run, !rest.trim().is_empty()))
}

/// Which side of a conflict a line belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Outside,
    Ours,
    Base,
    Theirs,
}

/// One complete run of markers: the lines it spans and its opening and closing labels.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Group {
    /// Index of the `<<<<<<<` line and of the `>>>>>>>` line.
    open: usize,
    close: usize,
    labels: (String, String),
}

/// Every complete marker run, wherever it is.
fn groups(lines: &[&str]) -> Vec<Group> {
    let mut out = Vec::new();
    let (mut side, mut open) = (Side::Outside, 0);
    for (i, line) in lines.iter().enumerate() {
        match (side, marker(line)) {
            (_, Some(Marker::Open)) => {
                // A second opener before the first closed: start over from it.
                side = Side::Ours;
                open = i;
            }
            (Side::Ours, Some(Marker::Base)) => side = Side::Base,
            (Side::Ours | Side::Base, Some(Marker::Split)) => side = Side::Theirs,
            (Side::Theirs, Some(Marker::Close)) => {
                let label = |l: &str| {
                    l.trim_end()
                        .trim_start_matches(['<', '>'])
                        .trim()
                        .to_string()
                };
                out.push(Group {
                    open,
                    close: i,
                    labels: (label(lines.get(open).unwrap_or(&"")), label(line)),
                });
                side = Side::Outside;
            }
            _ => {}
        }
    }
    out
}

/// The marker runs that are conflicts: those outside fenced code, and those inside a fence
/// that carry the same labels as one outside (git splits one merge into several hunks around
/// the lines both sides share — a shared fence line among them). Fences are read on the lines
/// outside every run, with CommonMark's rules, so a hunk whose two sides are different fence
/// lines shifts nothing.
fn conflicts(lines: &[&str]) -> Vec<Group> {
    let all = groups(lines);
    let mut fenced = vec![false; all.len()];
    let mut open: Option<(u8, usize)> = None;
    let mut next = 0;
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        if let Some(group) = all.get(next).filter(|g| g.open == i) {
            if let Some(f) = fenced.get_mut(next) {
                *f = open.is_some();
            }
            i = group.close + 1;
            next += 1;
            continue;
        }
        if let Some((c, run, info)) = fence(line) {
            match open {
                None => open = Some((c, run)),
                Some((oc, orun)) if oc == c && run >= orun && !info => open = None,
                Some(_) => {}
            }
        }
        i += 1;
    }
    let outside: Vec<(String, String)> = all
        .iter()
        .zip(&fenced)
        .filter(|(_, f)| !**f)
        .map(|(g, _)| g.labels.clone())
        .collect();
    all.into_iter()
        .zip(fenced)
        .filter(|(g, f)| !*f || outside.contains(&g.labels))
        .map(|(g, _)| g)
        .collect()
}

/// Each line of `text` (newline kept) with the side it is on, and how many conflicts there
/// are. Marker lines themselves belong to no side.
fn sides(text: &str) -> (Vec<(&str, Side)>, usize) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let found = conflicts(&lines);
    let mut out = Vec::with_capacity(lines.len());
    let mut g = found.iter().peekable();
    let mut side = Side::Outside;
    for (i, line) in lines.iter().enumerate() {
        match g.peek() {
            Some(c) if c.open == i => {
                side = Side::Ours;
                continue;
            }
            Some(c) if c.close == i => {
                side = Side::Outside;
                g.next();
                continue;
            }
            Some(c) if i > c.open && i < c.close => match (side, marker(line)) {
                (Side::Ours, Some(Marker::Base)) => {
                    side = Side::Base;
                    continue;
                }
                (Side::Ours | Side::Base, Some(Marker::Split)) => {
                    side = Side::Theirs;
                    continue;
                }
                _ => {}
            },
            _ => {}
        }
        out.push((*line, side));
    }
    (out, found.len())
}

/// How many complete conflicts `text` holds outside fenced code.
pub fn count(text: &str) -> usize {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    conflicts(&lines).len()
}

/// `text` with every conflict replaced by OURS' side: what megg loads until it is resolved.
pub fn ours(text: &str) -> String {
    match sides(text) {
        (lines, hunks) if hunks > 0 => lines
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
    let (lines, hunks) = sides(text);
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

    /// git splits one merge into hunks around shared lines: a shared fence line leaves the
    /// next hunk inside a fence, and it is still a conflict (it carries the merge's labels).
    #[test]
    fn hunks_between_shared_fence_lines_are_conflicts() {
        let t = "## Ours lint\n<<<<<<< HEAD\nnpm lint\n=======\n## Theirs\n>>>>>>> other\nUse this:\n```sh\n<<<<<<< HEAD\nnpm run lint\n=======\ncargo test --all\n>>>>>>> other\n```\n";
        assert_eq!(count(t), 2);
        assert_eq!(
            ours(t),
            "## Ours lint\nnpm lint\nUse this:\n```sh\nnpm run lint\n```\n"
        );
    }

    #[test]
    fn a_hunk_whose_sides_are_different_fence_lines_shifts_nothing() {
        let t = "<<<<<<< HEAD\n```sh\n=======\n```rust\n>>>>>>> other\nx\n```\ntext\n<<<<<<< HEAD\nA\n=======\nB\n>>>>>>> other\n";
        assert_eq!(count(t), 2);
    }

    #[test]
    fn fences_follow_commonmark() {
        // A four-backtick fence is not closed by three, nor by a line with an info string.
        let t = "````md\n```\n<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n```\n````\n";
        assert_eq!(count(t), 0);
        let t = "```\n```sh\n<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n```\n";
        assert_eq!(count(t), 0);
        // Indented four spaces: code, not a fence.
        let t = "    ```\n<<<<<<< ours\nA\n=======\nB\n>>>>>>> theirs\n";
        assert_eq!(count(t), 1);
    }
}
