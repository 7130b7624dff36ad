//! `megg merge-driver [--marker-size N] BASE OURS THEIRS PATH` (SPEC §11): git's merge driver
//! for knowledge and archive files, registered as `… --marker-size %L %O %A %B %P`.
//!
//! Git runs it in the work tree's top with three temp files (`.merge_file_XXXXXX`) and reads
//! the result back from OURS. It reads exactly those three files, each through a boundary that
//! is its own directory (no link out of it, no special file, at most 16 MiB), writes OURS
//! atomically, and never runs git: exit 0 when the merge is clean, 1 when conflict markers
//! remain.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::env::Env;
use crate::error::{Error, Result};
use crate::fsx::{self, Boundary};
use crate::megg::merge::{self, Conflict, Fallback, MAX_INPUT_BYTES, Side};
use crate::output::Output;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Length of the conflict markers (git's %L)
    #[arg(long, value_name = "N", default_value_t = merge::DEFAULT_MARKER_SIZE as u16,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub marker_size: u16,
    /// The common ancestor's version (git's %O; empty when both sides created the file)
    pub base: PathBuf,
    /// Our version (git's %A): the merge is written here
    pub ours: PathBuf,
    /// Their version (git's %B)
    pub theirs: PathBuf,
    /// The file's path in the repository (git's %P): only .megg/knowledge.md and
    /// .megg/archive/*.md merge by entry, anything else keeps both versions between markers
    pub path: PathBuf,
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let path = args.path.to_string_lossy();
    let ours_path = env.resolve(&args.ours);
    let ours = read(env, &args.ours)?.ok_or_else(|| too_large(&ours_path))?;
    let theirs = read(env, &args.theirs)?.ok_or_else(|| too_large(&env.resolve(&args.theirs)))?;
    // Without a readable base, nothing tells an entry one side deleted from one the other
    // added: git's line merge against an empty base keeps both sides for the user to settle.
    let base = match read(env, &args.base) {
        Ok(base) => base,
        Err(e) => {
            return line_merge(args, &ours_path, [&[], &ours, &theirs], &e.message);
        }
    };
    let marker_size = usize::from(args.marker_size);
    let by_entry = std::panic::catch_unwind(|| {
        crate::failpoint::panic_at("merge-driver");
        match &base {
            Some(base) => {
                let base = (!base.is_empty()).then_some(base.as_slice());
                merge::merge_knowledge(base, &ours, &theirs, &path, marker_size)
            }
            // A base over the bound cannot be read to merge by entry; OURS and THEIRS still
            // can be kept whole.
            None => merge::fallback(&ours, &theirs, Fallback::TooLarge(Side::Base), marker_size),
        }
    });
    let merged = match by_entry {
        Ok(merged) => merged,
        // A failure of megg's own leaves what git's own text merge leaves, and exit 1: both
        // sides are in the file for the user to settle, never one side alone (SPEC §16).
        Err(panic) => {
            let why = format!(
                "megg failed inside ({}) — a bug, please report it",
                crate::error::panic_message(&*panic)
            );
            let base = base.as_deref().unwrap_or_default();
            return line_merge(args, &ours_path, [base, &ours, &theirs], &why);
        }
    };
    fsx::write_atomic(&boundary(&ours_path)?, &ours_path, &merged.bytes)?;

    let mut warnings: Vec<String> = merged
        .warnings
        .iter()
        .map(|w| format!("{path}: {w}"))
        .collect();
    for c in &merged.conflicts {
        warnings.push(match c {
            Conflict::Entry(h) => format!(
                "{path}: both sides edited '{h}' differently: conflict markers around that entry"
            ),
            Conflict::Preamble => format!(
                "{path}: both sides changed the text before the first entry: conflict markers around it"
            ),
            Conflict::Whole(why) => format!(
                "{path} not merged by entry ({why}): both whole versions kept between conflict markers"
            ),
        });
    }
    Ok(Output {
        code: u8::from(!merged.is_clean()),
        ..Output::default()
    }
    .with_warnings(warnings))
}

/// What git's own text merge leaves — both sides, with conflict markers where they overlap —
/// written to OURS, exit 1: the merge driver's answer to any failure of its own (SPEC §16).
fn line_merge(
    args: &Args,
    ours_path: &Path,
    [base, ours, theirs]: [&[u8]; 3],
    why: &str,
) -> Result<Output> {
    let path = args.path.to_string_lossy();
    let bytes = match crate::git::text_merge(base, ours, theirs, args.marker_size) {
        Some(t) => t.bytes,
        // libgit2 refuses binary content: both whole versions between markers.
        None => {
            let size = usize::from(args.marker_size);
            merge::fallback(ours, theirs, Fallback::NotKnowledge, size).bytes
        }
    };
    fsx::write_atomic(&boundary(ours_path)?, ours_path, &bytes)?;
    Ok(Output {
        code: 1,
        ..Output::default()
    }
    .with_warnings(vec![format!(
        "{path}: not merged by entry ({why}); left git's line merge of both sides to settle by hand"
    )]))
}

/// A boundary that holds one file git passed: its own directory, nothing else.
fn boundary(file: &Path) -> Result<Boundary> {
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .ok_or_else(|| Error::user(format!("{} is not a file path", file.display())))?;
    Ok(Boundary::new(dir, "the merge's directory"))
}

/// The bytes of a file git passed; `None` when it is over [`MAX_INPUT_BYTES`] (only its first
/// bound plus one byte is ever read).
fn read(env: &Env, file: &Path) -> Result<Option<Vec<u8>>> {
    let file = env.resolve(file);
    let stream = fsx::open_stream(&boundary(&file)?, &file)?
        .ok_or_else(|| Error::user(format!("{} does not exist", file.display())))?;
    if stream.len > MAX_INPUT_BYTES as u64 {
        return Ok(None);
    }
    let mut bytes = Vec::with_capacity(stream.len as usize);
    stream
        .file
        .take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", &file, &e))?;
    Ok((bytes.len() <= MAX_INPUT_BYTES).then_some(bytes))
}

fn too_large(file: &Path) -> Error {
    Error::user(format!(
        "{} is over {MAX_INPUT_BYTES} bytes: not merged, left as it was",
        file.display()
    ))
    .with_hint("git keeps both versions: pick one with `git checkout --ours/--theirs -- <path>`")
}
