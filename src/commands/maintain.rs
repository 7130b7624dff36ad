//! `megg maintain [PATH] [--json] [--archive-before DATE]` (SPEC §6): a health report over
//! every `.megg` at or below PATH, archiving of old entries, and (`--check`) the entries whose
//! cited code changed (SPEC §17).

use std::path::PathBuf;

use chrono::NaiveDate;

use crate::clock::format_timestamp;
use crate::env::Env;
use crate::error::Error;
use crate::error::Result;
use crate::fsx;
use crate::megg::context::MAX_KNOWLEDGE_BYTES;
use crate::megg::discovery::Megg;
use crate::megg::discovery::{self, Domain};
use crate::megg::freshness;
use crate::megg::knowledge;
use crate::megg::maintain::{self, DomainReport};
use crate::megg::recall;
use crate::megg::state;
use crate::output::Output;
use crate::wire::knowledge::{Archived, Maintained};
use crate::wire::recall::Checked;

#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Where to look [default: the current domain's directory]
    pub path: Option<PathBuf>,
    /// Move entries dated before DATE (YYYY-MM-DD) into .megg/archive/knowledge-<year>.md
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub archive_before: Option<NaiveDate>,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
    /// With --archive-before: print only the summary (how many entries moved, where, what remains)
    #[arg(long, requires = "archive_before")]
    pub quiet: bool,
    /// List the entries whose cited code changed, moved or is gone since they were written,
    /// grouped by path with each path's commits once; change nothing, exit 1 when one is stale
    #[arg(long, conflicts_with_all = ["archive_before", "quiet"])]
    pub check: bool,
    /// With --check: list only the stale entries (a cited path gone, or changed in 5 commits or more)
    #[arg(long, requires = "check")]
    pub stale: bool,
}

/// A `YYYY-MM-DD` day (also the MCP `archiveBefore` parameter).
pub fn parse_date(s: &str) -> std::result::Result<NaiveDate, String> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map_err(|_| format!("'{s}' is not a date (YYYY-MM-DD)"))
}

pub fn run(env: &Env, args: &Args) -> Result<Output> {
    let mut warnings = env.config_warnings.clone();
    let root = match &args.path {
        Some(p) => env.resolve(p),
        None => {
            let top = env.top(&env.cwd);
            env.walk(&top)
                .current_domain(&env.cwd, &mut warnings)
                .map_or_else(|| env.cwd.clone(), |d| d.dir)
        }
    };
    if !fsx::is_dir(&root) {
        return Err(Error::user(format!(
            "{} is not a directory",
            root.display()
        )));
    }
    if args.check {
        return check(env, &root, args, warnings);
    }
    let found = discovery::domains_below(&root, maintain::MAX_DEPTH);
    warnings.extend(found.warnings);
    let today = env.clock.now().date_naive();
    let mut archived = Vec::new();
    let mut domains = Vec::with_capacity(found.domains.len());
    for n in &found.domains {
        let domain = match discovery::megg_at(&n.dir, &env.trusted) {
            Megg::Domain(d) => d,
            Megg::Refused(why) => {
                warnings.push(why);
                continue;
            }
            Megg::Absent => continue,
        };
        if let Some(before) = args.archive_before {
            archive(env, &domain, before, &mut archived)?;
        }
        domains.push(report(env, &domain, today, &mut warnings));
    }
    let result = Maintained {
        domains: domains.iter().map(Into::into).collect(),
        actions: maintain::actions(&domains, today)
            .iter()
            .map(crate::render::maintain::advice)
            .collect(),
        archived,
        // From the session start's walk (kept): plain `maintain` walks no deeper.
        cited_code: args
            .archive_before
            .is_none()
            .then(|| maintain::cited_code(&env.deps(), &root, fsx::user_cache_dir().as_deref()))
            .flatten()
            .as_ref()
            .map(Into::into),
        warnings,
        total: None,
        truncated: None,
    };
    let human = match args.archive_before {
        Some(before) => crate::render::maintain::archived_text(&result, before, args.quiet),
        None => crate::render::maintain::text(&result, args.path.as_deref()),
    };
    Ok(Output::pick(
        args.json,
        &result,
        human,
        result.warnings.clone(),
    ))
}

/// `--check`: every knowledge entry at or below `root` checked against git, those whose
/// citations are not all fresh listed with the commits that touched them.
fn check(
    env: &Env,
    root: &std::path::Path,
    args: &Args,
    mut warnings: Vec<String>,
) -> Result<Output> {
    let cache = fsx::user_cache_dir();
    let scope = recall::Scope {
        path: root,
        below: true,
        cache: cache.as_deref(),
    };
    let deps = env.deps();
    // Read as megg shows it (SPEC §12): a secret in a title prints `[redacted]`, and where.
    let (corpus, _) = recall::collect_indexed(&deps, &scope);
    warnings.extend(corpus.warnings.iter().cloned());
    let entries: Vec<&recall::Doc> = corpus
        .docs
        .iter()
        .filter(|d| d.kind == recall::Kind::Knowledge && d.path.starts_with(root))
        .collect();
    let how = freshness::Check {
        cap: freshness::CHECK_WALK_CAP,
        touches: true,
    };
    let checked = freshness::of_docs_with(&deps, &entries, &[], how);
    let mut result = Checked::new(&entries, &checked, warnings);
    if args.stale {
        result.only_stale();
    }
    let listed: Vec<&recall::Doc> = entries
        .iter()
        .copied()
        .filter(|d| result.entries.iter().any(|e| e.id == d.id.as_str()))
        .collect();
    result.warnings.extend(corpus.hidden_in(&listed));
    let human = crate::render::maintain::checked_text(&result);
    let mut out = Output::pick(args.json, &result, human, result.warnings.clone());
    // SPEC §17: a move, or a few commits, is not a failure; a stale entry is.
    if result.entries.iter().any(|e| e.stale) {
        out.code = 1;
    }
    Ok(out)
}

fn report(env: &Env, d: &Domain, today: NaiveDate, warnings: &mut Vec<String>) -> DomainReport {
    let mut r = DomainReport {
        dir: d.dir.clone(),
        ..DomainReport::default()
    };
    let path = d.knowledge_path();
    match fsx::read_text(&d.boundary, &path, MAX_KNOWLEDGE_BYTES) {
        Ok(Some(t)) if t.truncated => {
            r.problems.push(format!(
                "knowledge.md is over {MAX_KNOWLEDGE_BYTES} bytes: too large to summarise"
            ));
            r.knowledge = Some(path);
        }
        Ok(Some(t)) => {
            if t.lossy {
                r.problems.push("knowledge.md is not valid UTF-8".into());
            }
            let tokens = env.tokens.count(&t.text);
            maintain::analyse(&mut r, &t.text, tokens, today);
            maintain::supersession(&env.deps(), d, &mut r);
            r.knowledge = Some(path);
        }
        Ok(None) => {}
        Err(e) => warnings.push(e.message),
    }
    if let Ok(Some(t)) = fsx::read_text(&d.boundary, &d.state_path(), state::MAX_STATE_BYTES) {
        let doc = state::parse(&t.text, &d.state_path().display().to_string());
        r.expired_state =
            !state::expiry_within(&doc, env.clock.now(), d.state_lifetime(warnings)).is_active();
    }
    r
}

/// Moves entries dated before `before` out of `d`'s knowledge: each archive file is written
/// atomically first, the live file last, under the live file's lock.
fn archive(env: &Env, d: &Domain, before: NaiveDate, archived: &mut Vec<Archived>) -> Result<()> {
    let path = d.knowledge_path();
    let repo = env.repo(&d.dir);
    let b = &d.boundary;
    let _lock = crate::megg::lock(repo.as_ref(), b, &path)?;
    let Some(text) = fsx::read_for_edit(b, &path, MAX_KNOWLEDGE_BYTES)? else {
        return Ok(());
    };
    if crate::megg::conflict::count(&text) > 0 {
        return Err(Error::user(format!(
            "{} has unresolved merge conflicts: nothing archived",
            path.display()
        ))
        .with_hint("run `megg resolve` first, then archive"));
    }
    if let Some(why) = knowledge::unparsable(&text) {
        return Err(knowledge::refuse_unparsable(&path, &why));
    }
    let split = crate::frontmatter::split(&text);
    let plan = maintain::plan_archive(split.body, before);
    if plan.by_year.is_empty() {
        return Ok(());
    }
    let now = format_timestamp(env.clock.now());
    let dir = d.megg.join("archive");
    fsx::create_dir_all(b, &dir)?;
    for (year, entries) in &plan.by_year {
        let file = dir.join(format!("knowledge-{year}.md"));
        let existing = fsx::read_for_edit(b, &file, MAX_KNOWLEDGE_BYTES)?;
        if let Some(why) = existing.as_deref().and_then(knowledge::unparsable) {
            return Err(knowledge::refuse_unparsable(&file, &why));
        }
        let (new_text, _) = maintain::append_to_archive(existing.as_deref(), *year, entries, &now);
        fsx::write_atomic(b, &file, new_text.as_bytes())?;
        for e in entries {
            archived.push(Archived {
                title: e.title.to_string(),
                date: e.date.unwrap_or_default().to_string(),
                to: file.display().to_string(),
            });
        }
    }
    // A test-only failure here proves an interruption between the writes loses nothing.
    crate::failpoint::fail_at("archive-before-live")?;
    let live = match split.yaml {
        Some(yaml) => crate::frontmatter::join(
            &crate::frontmatter::set(yaml, "updated", &now, split.newline),
            &plan.remaining_body,
            split.newline,
        ),
        None => plan.remaining_body.clone(),
    };
    fsx::write_atomic(b, &path, live.as_bytes())
}
