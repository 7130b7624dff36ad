//! git's own line-by-line three-way merge of one file (libgit2's `git_merge_file`, the xdiff
//! merge `git merge-file` runs): what git would have left had no merge driver been registered.
//! The merge driver falls back to it when its entry-level merge fails inside megg (SPEC §16).

/// A text merge's result: the merged bytes (with conflict markers where both sides changed
/// the same lines) and whether it merged cleanly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextMerge {
    pub bytes: Vec<u8>,
    pub clean: bool,
}

/// Merges `ours` and `theirs` line by line against `base` (empty when there is none), with
/// markers of `marker_size` labelled `ours` and `theirs` as git labels a driver's sides.
/// `None` when libgit2 cannot merge them (it refuses binary content).
pub fn text_merge(base: &[u8], ours: &[u8], theirs: &[u8], marker_size: u16) -> Option<TextMerge> {
    // `git_merge_file` does not start libgit2 itself (git2 0.21 does so only in the calls that
    // need a repository or an object id): this one does, once per process.
    let _ = git2::Oid::from_str("0");
    let input = |bytes| {
        let mut i = git2::MergeFileInput::new();
        i.content(bytes);
        i
    };
    let mut opts = git2::MergeFileOptions::new();
    opts.marker_size(marker_size)
        .our_label("ours")
        .their_label("theirs");
    let result =
        git2::merge_file(&input(base), &input(ours), &input(theirs), Some(&mut opts)).ok()?;
    Some(TextMerge {
        bytes: result.content().to_vec(),
        clean: result.is_automergeable(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_are_kept_with_markers_where_they_overlap() {
        let m = text_merge(b"a\nb\nc\n", b"a\nB1\nc\n", b"a\nB2\nc\n", 7).unwrap();
        assert!(!m.clean);
        let text = String::from_utf8(m.bytes).unwrap();
        assert_eq!(
            text,
            "a\n<<<<<<< ours\nB1\n=======\nB2\n>>>>>>> theirs\nc\n"
        );
        let m = text_merge(b"a\nb\nc\n", b"A\nb\nc\n", b"a\nb\nC\n", 7).unwrap();
        assert!(m.clean);
        assert_eq!(m.bytes, b"A\nb\nC\n");
    }
}
