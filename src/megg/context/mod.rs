//! Computing what `megg context` delivers (SPEC §3.1): the chain, the current domain's info,
//! knowledge in the mode its size allows, the active state, files, siblings and children.
//! Rendering lives in `render::context`.
//!
//! This file gathers the parts, each under [`part`]'s guard; [`knowledge`] loads the
//! knowledge file in its mode with its index, [`state`] the handoff with its git notes, and
//! [`read`] reads a domain's markdown files for all of them.

use std::path::{Path, PathBuf};

use super::Deps;
use super::discovery::{self, Domain, Neighbour};
use super::recall::hidden::{self, Hidden};
use crate::fsx;

mod continuity;
mod knowledge;
mod read;
mod state;

pub use super::discovery::{MAX_INFO_BYTES, MAX_KNOWLEDGE_BYTES};
pub use continuity::Workflow;
pub use knowledge::{CONFLICT_WARNING, Knowledge, Mode};
use knowledge::{load_knowledge, with_index};
pub use read::body_of;
use read::{read_or_warn, title_and_excerpt};
use state::own_capture;
pub use state::{StateView, load_state};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Absolute target directory.
    pub path: PathBuf,
    pub topic: Option<String>,
    /// Also compute the fallbacks a size budget may need (the digest of full knowledge).
    pub with_fallbacks: bool,
    /// A session resuming after `compact` or `resume`: its own capture, when it has one, is
    /// the state (SPEC §10).
    pub own_capture: Option<super::capture::SessionId>,
    /// Inject the host's compaction summary of the handoff's session (SPEC §18.1; off with
    /// `MEGG_HOST_SUMMARY=off`).
    pub host_summary: bool,
}

#[derive(Debug, Clone)]
pub struct Context {
    pub path: PathBuf,
    pub chain: Vec<ChainLink>,
    pub domain: Option<Domain>,
    pub info: Option<String>,
    pub knowledge: Option<Knowledge>,
    pub state: Option<StateView>,
    /// The domain's `state.md` when it expired by age or date rather than by being marked
    /// done: not loaded, yet said in one line with how to read it (a Friday handoff on Monday
    /// is still worth a look).
    pub expired_state: Option<StateView>,
    /// Other sessions' captures newer than the state shown: parallel sessions whose handoff
    /// stayed in their own file (SPEC §10).
    pub newer_captures: Vec<super::capture::Newer>,
    /// The host's compaction summary of the session whose handoff `state` is (SPEC §18.1):
    /// reference data shown after megg's own sections, never part of the handoff.
    pub host_summary: Option<super::capture::kept_summary::Kept>,
    /// The project's workflow in progress, named in one line (SPEC §18.2).
    pub workflow: Option<Workflow>,
    /// In the main worktree, one line per removed worktree whose last handoff is unexpired
    /// (SPEC §18.2): where to read it, never injected as this worktree's own.
    pub removed_worktrees: Vec<String>,
    pub files: Vec<FileEntry>,
    pub siblings: Vec<Neighbour>,
    pub children: Vec<Neighbour>,
    /// The walk down stopped at its bound (SPEC §14): deeper domains were not looked for.
    pub children_cut: bool,
    pub warnings: Vec<String>,
    /// The secrets shown as `[redacted]` (SPEC §12 "At injection"), each file's once: warnings
    /// of their own, which the hook gathers into one sentence.
    pub hidden: Vec<Hidden>,
}

#[derive(Debug, Clone)]
pub struct ChainLink {
    pub name: String,
    pub dir: PathBuf,
    pub info: PathBuf,
    pub title: String,
    /// A short excerpt of the body after the title.
    pub excerpt: String,
}

#[derive(Debug, Clone)]
pub struct FileEntry {
    pub name: String,
    pub path: PathBuf,
    pub loaded: bool,
}

/// Builds the context for `req.path`. Fails only when the target is not a directory; every
/// other problem becomes a warning.
pub fn build(deps: &Deps<'_>, req: &Request) -> Result<Context, crate::error::Error> {
    let path = &req.path;
    if !fsx::is_dir(path) {
        return Err(
            crate::error::Error::user(format!("{} is not a directory", path.display()))
                .with_hint("pass an existing directory"),
        );
    }
    // The walk down for children costs its directories' system calls (up to 128 of them at
    // the top of a monorepo): it runs beside the rest, on a thread of its own when one can
    // be had, so the hook waits for the longer of the two, not for both.
    let trusted = deps.trusted;
    std::thread::scope(|scope| {
        let walk = || discovery::children(path, trusted);
        let children = std::thread::Builder::new()
            .name("children".into())
            .spawn_scoped(scope, move || {
                crate::failpoint::panic_at("children-thread");
                walk()
            })
            .ok();
        let mut context = gather(deps, req)?;
        let found = match children.map(|t| t.join()) {
            Some(Ok(found)) => found,
            // No thread (or it failed): walked here.
            _ => {
                crate::failpoint::log("children-walked-in-place");
                walk()
            }
        };
        context.warnings.extend(found.warnings);
        context.children = found.domains;
        context.children_cut = found.cut;
        Ok(context)
    })
}

/// Everything [`build`] finds but the children.
fn gather(deps: &Deps<'_>, req: &Request) -> Result<Context, crate::error::Error> {
    let path = &req.path;
    let mut warnings = Vec::new();
    let mut hidden = Vec::new();
    let top = deps.top(path);
    let (domain, chain_domains) = deps.walk(&top).chain(path, &mut warnings);

    let mut chain = Vec::with_capacity(chain_domains.len());
    let mut info = None;
    for d in &chain_domains {
        let file = d.info_path();
        let link = part("info", &file, &mut warnings, |warnings| {
            let text = read_or_warn(&d.boundary, &file, MAX_INFO_BYTES, (warnings, &mut hidden))
                .unwrap_or_default();
            let body = body_of(&text);
            let (title, excerpt) = title_and_excerpt(body, &d.name);
            (body.to_string(), title, excerpt)
        });
        // A link whose info.md failed still names its domain: the chain keeps its shape.
        let (body, title, excerpt) =
            link.unwrap_or_else(|| (String::new(), d.name.clone(), String::new()));
        if domain.as_ref().is_some_and(|cur| cur.dir == d.dir) {
            info = Some(body);
        }
        chain.push(ChainLink {
            name: d.name.clone(),
            dir: d.dir.clone(),
            info: file,
            title,
            excerpt,
        });
    }

    let (mut knowledge, mut state, mut files, mut siblings) = (None, None, Vec::new(), Vec::new());
    let (mut newer_captures, mut expired_state) = (Vec::new(), None);
    let (mut host_summary, mut workflow, mut removed_worktrees) = (None, None, Vec::new());
    if let Some(d) = &domain {
        let repo = deps.repo(path);
        // The handoff first: whatever fails after it, it is already here (SPEC §16).
        let on_disk = part("state", &d.state_path(), &mut warnings, |w| {
            load_state(deps, d, w, &mut hidden)
        })
        .flatten();
        let own = req.own_capture.as_ref().and_then(|id| {
            part("capture", &d.state_path(), &mut warnings, |w| {
                own_capture(deps, d, path, id, (w, &mut hidden))
            })
            .flatten()
        });
        if on_disk.is_some() {
            newer_captures = part("captures", &d.megg, &mut warnings, |_| {
                let Some(sessions) = super::capture::sessions_for(repo.as_ref(), &top, Some(d))
                else {
                    return Vec::new();
                };
                let exclude: Vec<&str> = on_disk
                    .as_ref()
                    .and_then(|s| s.session.as_deref())
                    .into_iter()
                    .chain(req.own_capture.as_ref().map(|id| id.as_str()))
                    .collect();
                super::capture::newer_captures(
                    deps,
                    &sessions,
                    d,
                    on_disk.as_ref().and_then(|s| s.updated_at),
                    &exclude,
                )
            })
            .unwrap_or_default();
        }
        expired_state = on_disk
            .as_ref()
            .filter(|s| s.expired && s.status != "done")
            .cloned();
        let own = own.filter(|s| !s.expired);
        // An expired handoff is not loaded, yet still says what the last session was about:
        // the index ranks by it (issue 38 item 1).
        let last_handoff = own.as_ref().or(on_disk.as_ref()).map(|s| s.content.clone());
        state = own.or(on_disk).filter(|s| !s.expired);
        if req.host_summary {
            host_summary = part("summary", &d.state_path(), &mut warnings, |_| {
                let sessions = super::capture::sessions_for(repo.as_ref(), &top, Some(d));
                continuity::host_summary(
                    sessions.as_ref(),
                    (state.as_ref(), req.own_capture.as_ref()),
                    &mut hidden,
                )
            })
            .flatten();
        }
        if let Some(r) = &repo {
            removed_worktrees = part("worktrees", &d.dir, &mut warnings, |_| {
                super::worktrees::removed_handoffs(deps, r, d)
                    .iter()
                    .map(|w| super::worktrees::line(w, deps.now))
                    .collect()
            })
            .unwrap_or_default();
        }
        let checkpoint = part("workflow", &d.dir, &mut warnings, |_| {
            continuity::newest_checkpoint(deps, path)
        })
        .flatten();
        workflow = checkpoint.as_ref().map(|c| Workflow::of(c, &mut hidden));
        let file = d.knowledge_path();
        knowledge = part("knowledge", &file, &mut warnings, |w| {
            load_knowledge(
                deps,
                repo.as_ref(),
                d,
                (req.topic.as_deref(), req.with_fallbacks),
                (w, &mut hidden),
            )
        })
        .flatten();
        if let Some(k) = knowledge.as_mut().filter(|k| k.topic.is_none()) {
            // Without its index, knowledge in summary or blocked mode still shows the seed's
            // digest or blocked message.
            // (`with_index` sets the index last: a failure leaves none.)
            part("index", &file, &mut warnings, |_| {
                with_index(
                    k,
                    (deps, d, &chain_domains),
                    || {
                        super::recall::session::items(
                            last_handoff.as_deref(),
                            checkpoint.as_ref(),
                            repo.as_ref(),
                        )
                    },
                    &mut hidden,
                );
            });
        }
        files = part("files", &d.megg, &mut warnings, |warnings| {
            let (listed, total) = discovery::megg_files(d);
            if total > listed.len() {
                warnings.push(format!(
                    "{} holds {total} .md files; listing the first {}",
                    d.megg.display(),
                    listed.len()
                ));
            }
            listed
                .into_iter()
                .map(|p| {
                    let name = discovery::dir_name(&p);
                    let loaded = match name.as_str() {
                        "info.md" | "knowledge.md" => true,
                        "state.md" => state.is_some(),
                        _ => false,
                    };
                    FileEntry {
                        name,
                        path: p,
                        loaded,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
        siblings = part("siblings", &d.dir, &mut warnings, |warnings| {
            let found = discovery::siblings(&d.dir, deps.trusted);
            warnings.extend(found.warnings);
            found.domains
        })
        .unwrap_or_default();
    }
    // The knowledge file is read again for its index: its secrets are named once.
    hidden::dedup(&mut hidden);
    Ok(Context {
        path: path.clone(),
        chain,
        domain,
        info,
        knowledge,
        state,
        expired_state,
        newer_captures,
        host_summary,
        workflow,
        removed_worktrees,
        files,
        siblings,
        children: Vec::new(),
        children_cut: false,
        warnings,
        hidden,
    })
}

/// Builds one part of the context (SPEC §16): its warnings join the others; a failure inside
/// megg while building it (a panic, whatever the input) becomes one warning naming `file` and
/// `megg doctor`, and the other parts still load. `name` is the part's failure point in tests
/// (`MEGG_FAILPOINTS=panic=<name>`).
fn part<T>(
    name: &str,
    file: &Path,
    warnings: &mut Vec<String>,
    build: impl FnOnce(&mut Vec<String>) -> T,
) -> Option<T> {
    let mut own = Vec::new();
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::failpoint::panic_at(name);
        build(&mut own)
    }));
    warnings.append(&mut own);
    match built {
        Ok(value) => Some(value),
        Err(panic) => {
            warnings.push(failed_part(file, &crate::error::panic_message(&*panic)));
            None
        }
    }
}

/// The one line a part that failed inside megg becomes.
pub fn failed_part(file: &Path, why: &str) -> String {
    format!(
        "{} was not loaded: megg failed on it ({why}); run `megg doctor`, and please report it",
        file.display()
    )
}
