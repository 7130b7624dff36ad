//! Open items are not dropped by a later session (SPEC §18.2): when a capture replaces a
//! handoff another session wrote (or a person did), the open `## Next` items of that handoff
//! which this session did not complete are carried into the capture's own `## Next`, under a
//! line naming where they came from:
//!
//! ```text
//! ## Next
//! - [ ] this session's own open task
//! - Carried from the handoff of session 5f2c81d0-2b7e-4c1a-9d3e-7a61f0c4b2e9, 2026-11-20T09:00:00Z (megg show hx14et3x; carried 1 of 3 times):
//!   - [ ] Handle Stripe charge.refunded webhook
//! ```
//!
//! The capture itself holds them, so the session's next capture reads them back from its
//! previous one, and a later session that replaces this handoff carries them again (counted)
//! while they are open — at most [`MAX_REPLACEMENTS`] times, for at most [`MAX_AGE`] after the
//! handoff they were first open in. Pure: the caller reads the files and counts the tokens.

use chrono::{DateTime, Duration, Utc};

use super::transcript::{Task, one_line_cut};
use crate::clock::{format_timestamp, parse_timestamp};
use crate::megg::recall::{Kind, ids::base_id};
use crate::megg::state::{self, Lifetime};

/// Most items carried into one handoff.
pub const MAX_ITEMS: usize = 10;
/// Most replacements an item is carried through.
pub const MAX_REPLACEMENTS: u32 = 3;
/// How long after the handoff it was open in an item is still carried.
pub const MAX_AGE: Duration = Duration::days(14);
/// Characters of an item kept (on one line, redacted).
const ITEM_CHARS: usize = 300;

/// How the line naming a group's origin starts.
const HEADER: &str = "- Carried from ";
/// The placeholder of a handoff with no open task ([`super::handoff::render`]).
const NO_OPEN_TASKS: &str = "- (no open tasks recorded)";

/// The handoff carried items were open in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The session that captured it; `None` for one written by hand.
    pub session: Option<String>,
    /// Its `updated`.
    pub at: DateTime<Utc>,
    /// Its `megg show` id.
    pub id: String,
    /// How many replacements have carried its items so far (1 the first).
    pub times: u32,
}

/// Items carried from one handoff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub origin: Origin,
    pub items: Vec<String>,
}

/// What a capture carries from.
#[derive(Debug, Clone)]
pub struct Sources<'a> {
    /// The capturing session.
    pub session: &'a str,
    /// The `state.md` this capture's promotion would replace (read only when it may), with
    /// the domain's handoff lifetime.
    pub replaced: Option<(&'a str, Lifetime)>,
    /// The session's previous capture, which holds what it carried before.
    pub previous: Option<&'a str>,
    /// The session's tasks: one it completed (or still has open) is not carried.
    pub tasks: &'a [Task],
    pub now: DateTime<Utc>,
}

/// `content` (a handoff [`super::handoff::render`] made) with the items carried from
/// `sources` in its `## Next` — as many of them as keep `fits` true, the session's own content
/// never giving way to them (SPEC §10's 2,000 tokens).
pub fn into_handoff(content: String, sources: &Sources<'_>, fits: impl Fn(&str) -> bool) -> String {
    let groups = carried(sources);
    let total: usize = groups.iter().map(|g| g.items.len()).sum();
    for n in (1..=total.min(MAX_ITEMS)).rev() {
        let out = insert(&content, &render(&first(&groups, n)));
        if fits(&out) {
            return out;
        }
    }
    content
}

/// The groups carried, each item once, at most [`MAX_ITEMS`] in all: what the session carried
/// before, as it was, then what the handoff it replaces had open — its own items (carried the
/// first time) and what it carried itself (once more) — leaving out what this session
/// completed or lists itself, what was carried [`MAX_REPLACEMENTS`] times, and what is older
/// than [`MAX_AGE`]. An expired replaced handoff gives nothing.
pub fn carried(s: &Sources<'_>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    if let Some(previous) = s.previous {
        groups.extend(next_items(&state::parse(previous, "").content).carried);
    }
    if let Some((text, lifetime)) = s.replaced {
        let doc = state::parse(text, "");
        let parsed = next_items(&doc.content);
        let auto = doc.source.as_deref() == Some("auto");
        if auto && doc.session.as_deref() == Some(s.session) {
            // This session's own handoff: what it carried, as it was.
            groups.extend(parsed.carried);
        } else if state::expiry_within(&doc, s.now, lifetime).is_active()
            && let Some(at) = doc.updated
        {
            groups.push(Group {
                origin: Origin {
                    session: doc.session.clone().filter(|_| auto),
                    at,
                    id: base_id(Kind::Handoff, &doc.recall_key()),
                    times: 1,
                },
                items: parsed.own,
            });
            groups.extend(parsed.carried.into_iter().map(|mut g| {
                g.origin.times = g.origin.times.saturating_add(1);
                g
            }));
        }
    }
    let mut seen: Vec<String> = Vec::new();
    let mut out: Vec<Group> = Vec::new();
    let mut count = 0;
    for mut g in groups {
        if g.origin.times > MAX_REPLACEMENTS || s.now - g.origin.at > MAX_AGE {
            continue;
        }
        g.items.retain(|item| {
            let keep = count < MAX_ITEMS
                && !seen.contains(&norm(item))
                && !s.tasks.iter().any(|t| same_task(item, &t.subject));
            if keep {
                seen.push(norm(item));
                count += 1;
            }
            keep
        });
        match out.iter_mut().find(|o| o.origin == g.origin) {
            Some(o) => o.items.append(&mut g.items),
            None if !g.items.is_empty() => out.push(g),
            None => {}
        }
    }
    out
}

/// Whether a handoff's item names this task: the same text, case and spacing aside — or the
/// task as a capture writes it, with its mark or description after it.
fn same_task(item: &str, subject: &str) -> bool {
    let (item, subject) = (norm(item), norm(subject));
    item == subject
        || item
            .strip_prefix(&subject)
            .is_some_and(|rest| rest.starts_with(" (in progress)") || rest.starts_with(" — "))
}

/// Text compared case and spacing aside.
fn norm(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The first `n` items of `groups`.
fn first(groups: &[Group], n: usize) -> Vec<Group> {
    let mut left = n;
    let mut out = Vec::new();
    for g in groups {
        if left == 0 {
            break;
        }
        let items: Vec<String> = g.items.iter().take(left).cloned().collect();
        left -= items.len();
        out.push(Group {
            origin: g.origin.clone(),
            items,
        });
    }
    out
}

/// The open items of a handoff's `## Next`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct NextItems {
    /// Its own open items (`- [ ] x`, `- x`, `1. x`), not those done (`- [x] x`).
    pub own: Vec<String>,
    /// What it carried from earlier handoffs, still open.
    pub carried: Vec<Group>,
}

/// Reads the open items of the `## Next` section of a handoff's content (the heading in any
/// case, with or without a colon). A list's items are those at its first item's indentation;
/// lines further in belong to the item above them (only a carried group's items are read).
pub fn next_items(content: &str) -> NextItems {
    let mut out = NextItems::default();
    let mut inside = false;
    let mut indent: Option<usize> = None;
    // The carried group being read.
    let mut group: Option<Group> = None;
    let close = |group: &mut Option<Group>, out: &mut NextItems| {
        if let Some(g) = group.take()
            && !g.items.is_empty()
        {
            out.carried.push(g);
        }
    };
    for line in content.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            let heading = heading.trim();
            let heading = heading.strip_suffix(':').unwrap_or(heading).trim_end();
            close(&mut group, &mut out);
            inside = heading.eq_ignore_ascii_case("Next");
            continue;
        }
        let text = line.trim_start();
        let Some(item) = inside
            .then(|| crate::megg::recall::session::without_list_marker(text))
            .flatten()
        else {
            continue;
        };
        let at = line.len() - text.len();
        if at <= *indent.get_or_insert(at) {
            close(&mut group, &mut out);
            // A line that only looks like a header is an item like any other.
            if let Some(origin) = text.starts_with(HEADER).then(|| origin(text)).flatten() {
                group = Some(Group {
                    origin,
                    items: Vec::new(),
                });
            } else if let Some(open) = open_item(item) {
                out.own.push(open);
            }
        } else if let Some(g) = group.as_mut()
            && let Some(open) = open_item(item)
        {
            g.items.push(open);
        }
    }
    close(&mut group, &mut out);
    out
}

/// An item's text when it is open and says something: not checked (`[x]`), not a placeholder
/// (`(no open tasks recorded)`, `… and 3 more`); on one line, redacted, cut.
fn open_item(item: &str) -> Option<String> {
    let item = item.trim();
    if ["[x]", "[X]"].iter().any(|b| item.starts_with(b)) {
        return None;
    }
    let text = item.strip_prefix("[ ]").unwrap_or(item).trim();
    let placeholder = (text.starts_with('(') && text.ends_with(')')) || text.starts_with('…');
    let text = one_line_cut(text, ITEM_CHARS);
    (!text.is_empty() && !placeholder).then_some(text)
}

/// The line naming a group's origin ([`HEADER`] …).
fn header(o: &Origin) -> String {
    let who = match &o.session {
        Some(s) => format!("the handoff of session {}", shown_session(s)),
        None => "a handoff written by hand".to_string(),
    };
    format!(
        "{HEADER}{who}, {} (megg show {}; carried {} of {MAX_REPLACEMENTS} times):",
        format_timestamp(o.at),
        o.id,
        o.times
    )
}

/// A session id as a header names it: only the characters a session file's name may have.
fn shown_session(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(128)
        .collect()
}

/// The origin a header line names; `None` when it does not read.
fn origin(line: &str) -> Option<Origin> {
    let rest = line.strip_prefix(HEADER)?.trim_end();
    let (who_at, tail) = rest.rsplit_once(" (megg show ")?;
    let (id, times) = tail.strip_suffix("):")?.split_once("; carried ")?;
    let times: u32 = times.split_whitespace().next()?.parse().ok()?;
    let (who, at) = who_at.rsplit_once(", ")?;
    let session = match who.strip_prefix("the handoff of session ") {
        Some(s) => Some(shown_session(s)),
        None if who == "a handoff written by hand" => None,
        None => return None,
    };
    Some(Origin {
        session,
        at: parse_timestamp(at)?.at,
        id: id.trim().to_string(),
        times,
    })
}

/// The lines of the carried groups: each group's origin, then its items under it.
pub fn render(groups: &[Group]) -> String {
    let mut out = String::new();
    for g in groups.iter().filter(|g| !g.items.is_empty()) {
        out.push_str(&header(&g.origin));
        out.push('\n');
        for item in &g.items {
            out.push_str("  - [ ] ");
            out.push_str(item);
            out.push('\n');
        }
    }
    out
}

/// `content` with `block` at the end of its `## Next` (which then no longer says it has no
/// open task), or in a `## Next` of its own at the end when it has none.
pub fn insert(content: &str, block: &str) -> String {
    if block.is_empty() {
        return content.to_string();
    }
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let is_heading = |l: &str, next: bool| {
        l.strip_prefix("## ").is_some_and(|h| {
            let h = h.trim();
            !next
                || h.strip_suffix(':')
                    .unwrap_or(h)
                    .trim_end()
                    .eq_ignore_ascii_case("Next")
        })
    };
    let Some(start) = lines.iter().position(|l| is_heading(l, true)) else {
        let sep = if content.is_empty() || content.ends_with("\n\n") {
            ""
        } else if content.ends_with('\n') {
            "\n"
        } else {
            "\n\n"
        };
        return format!("{content}{sep}## Next\n{block}");
    };
    let end = lines
        .iter()
        .enumerate()
        .skip(start + 1)
        .find(|(_, l)| is_heading(l, false))
        .map_or(lines.len(), |(i, _)| i);
    // After the section's last line that says something.
    let at = (start + 1..end)
        .rev()
        .find(|&i| lines.get(i).is_some_and(|l| !l.trim().is_empty()))
        .map_or(start + 1, |i| i + 1);
    let mut out = String::with_capacity(content.len() + block.len() + 1);
    for (i, l) in lines.iter().enumerate() {
        if i == at {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(block);
        }
        if (start..end).contains(&i) && l.trim_end() == NO_OPEN_TASKS {
            continue;
        }
        out.push_str(l);
    }
    if at >= lines.len() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(block);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::megg::capture::transcript::TaskStatus;

    fn at(s: &str) -> DateTime<Utc> {
        parse_timestamp(s).map(|p| p.at).unwrap_or_default()
    }

    const NOW: &str = "2026-11-22T12:00:00Z";

    fn claude_state(next: &str) -> String {
        format!(
            "---\nupdated: 2026-11-22T10:00:00Z\nstatus: active\nsource: auto\nsession: claude-1\ndomain: /p/.megg\n---\n\n## Working On\nPayments\n\n## Progress\n- [x] Wire checkout\n\n## Next\n{next}\n## Context\n- Branch: main\n"
        )
    }

    fn sources<'a>(replaced: Option<&'a str>, tasks: &'a [Task]) -> Sources<'a> {
        Sources {
            session: "codex-2",
            replaced: replaced.map(|t| (t, Lifetime::default())),
            previous: None,
            tasks,
            now: at(NOW),
        }
    }

    fn task(subject: &str, status: TaskStatus) -> Task {
        Task {
            id: None,
            subject: subject.into(),
            description: String::new(),
            status,
        }
    }

    const OWN: &str = "## Working On\nX\n\n## Progress\n- (nothing completed yet)\n\n## Next\n- (no open tasks recorded)\n\n## Context\n- Branch: main\n";

    #[test]
    fn open_items_of_another_sessions_handoff_are_carried_with_their_origin() {
        let state = claude_state(
            "- [ ] Handle Stripe charge.refunded webhook — details\n- [x] Done already\n* plain item\n2. numbered item\n  - a detail, not an item\n- … and 3 more open tasks\n",
        );
        let out = into_handoff(OWN.into(), &sources(Some(&state), &[]), |_| true);
        let id = base_id(Kind::Handoff, "2026-11-22T10:00:00Z\nclaude-1");
        assert_eq!(
            out,
            format!(
                "## Working On\nX\n\n## Progress\n- (nothing completed yet)\n\n## Next\n\
                 - Carried from the handoff of session claude-1, 2026-11-22T10:00:00Z (megg show {id}; carried 1 of 3 times):\n  \
                 - [ ] Handle Stripe charge.refunded webhook — details\n  - [ ] plain item\n  - [ ] numbered item\n\n\
                 ## Context\n- Branch: main\n"
            )
        );
        // Read back, as the next capture of the session and a later session do.
        let back = next_items(&out);
        assert!(back.own.is_empty(), "{back:?}");
        assert_eq!(back.carried.len(), 1);
        assert_eq!(back.carried.first().map(|g| g.items.len()), Some(3));
    }

    #[test]
    fn a_handoff_written_by_hand_is_named_so() {
        let state = "---\nupdated: 2026-11-22T09:00:00Z\n---\n\n## Next:\n- [ ] 返金 webhook を処理する / Handle the refund webhook\n";
        let groups = carried(&sources(Some(state), &[]));
        let text = render(&groups);
        assert!(
            text.starts_with(
                "- Carried from a handoff written by hand, 2026-11-22T09:00:00Z (megg show h"
            ),
            "{text}"
        );
        assert!(text.ends_with("  - [ ] 返金 webhook を処理する / Handle the refund webhook\n"));
        assert_eq!(next_items(&format!("## Next\n{text}")).carried, groups);
    }

    #[test]
    fn what_this_session_completed_or_lists_is_not_carried() {
        let state = claude_state(
            "- [ ] Handle  STRIPE charge.refunded webhook (in progress) — d\n- [ ] Keep me\n- [ ] Already mine\n",
        );
        let tasks = [
            task(
                "handle stripe charge.refunded webhook",
                TaskStatus::Completed,
            ),
            task("Already mine", TaskStatus::Pending),
        ];
        let groups = carried(&sources(Some(&state), &tasks));
        assert_eq!(groups.len(), 1);
        assert_eq!(
            groups.first().map(|g| g.items.clone()),
            Some(vec!["Keep me".to_string()])
        );
    }

    #[test]
    fn own_expired_and_old_handoffs_carry_nothing_new() {
        let state = claude_state("- [ ] Open item\n");
        // Its own handoff: nothing of its own is carried.
        let mut s = sources(Some(&state), &[]);
        s.session = "claude-1";
        assert!(carried(&s).is_empty());
        // Expired (older than 48 hours).
        let mut s = sources(Some(&state), &[]);
        s.now = at("2026-11-24T10:00:01Z");
        assert!(carried(&s).is_empty());
        // Done.
        let done = state.replace("status: active", "status: done");
        assert!(carried(&sources(Some(&done), &[])).is_empty());
    }

    #[test]
    fn carried_again_at_most_three_times_and_fourteen_days() {
        let origin = |times, when: &str| Origin {
            session: Some("a".into()),
            at: at(when),
            id: "h0000001".into(),
            times,
        };
        let group = |o| Group {
            origin: o,
            items: vec!["Old item".into()],
        };
        let next = |groups: &[Group]| claude_state(&format!("- [ ] Mine\n{}", render(groups)));
        // A second replacement: counted.
        let state = next(&[group(origin(1, "2026-11-21T12:00:00Z"))]);
        let out = carried(&sources(Some(&state), &[]));
        assert_eq!(out.len(), 2);
        assert_eq!(out.get(1).map(|g| g.origin.times), Some(2));
        // The fourth: dropped.
        let state = next(&[group(origin(3, "2026-11-21T12:00:00Z"))]);
        assert_eq!(carried(&sources(Some(&state), &[])).len(), 1);
        // Over 14 days after the handoff it was open in: dropped.
        let state = next(&[group(origin(1, "2026-11-08T11:59:59Z"))]);
        assert_eq!(carried(&sources(Some(&state), &[])).len(), 1);
    }

    #[test]
    fn a_second_capture_keeps_what_the_first_carried() {
        let state = claude_state("- [ ] Open item\n");
        let first = into_handoff(OWN.into(), &sources(Some(&state), &[]), |_| true);
        let previous = crate::megg::state::render(&first, at(NOW), None, None);
        // Now `state.md` is the session's own capture: the previous capture says what it carried.
        let mut s = sources(None, &[]);
        s.previous = Some(&previous);
        assert_eq!(into_handoff(OWN.into(), &s, |_| true), first);
        // And its own state, read again, does not count twice.
        let own = crate::megg::state::render_from(
            &first,
            at(NOW),
            None,
            None,
            Some(("codex-2", std::path::Path::new("/p"))),
        );
        s.replaced = Some((&own, Lifetime::default()));
        assert_eq!(into_handoff(OWN.into(), &s, |_| true), first);
    }

    #[test]
    fn at_most_ten_items_and_only_what_fits() {
        let items: String = (1..=14).map(|i| format!("- [ ] Item {i}\n")).collect();
        let state = claude_state(&items);
        let out = into_handoff(OWN.into(), &sources(Some(&state), &[]), |_| true);
        assert_eq!(out.matches("  - [ ] Item").count(), MAX_ITEMS);
        assert!(out.contains("Item 10\n") && !out.contains("Item 11"));
        let out = into_handoff(OWN.into(), &sources(Some(&state), &[]), |t| {
            t.len() < OWN.len() + 200
        });
        let n = out.matches("  - [ ] Item").count();
        assert!((1..MAX_ITEMS).contains(&n), "{out}");
        assert!(out.len() < OWN.len() + 200);
        // Nothing fits: the session's own content, untouched.
        let out = into_handoff(OWN.into(), &sources(Some(&state), &[]), |t| t == OWN);
        assert_eq!(out, OWN);
    }

    #[test]
    fn insert_goes_at_the_end_of_next_or_makes_one() {
        let block = "- Carried from x\n";
        assert_eq!(
            insert("## Next\n- [ ] a\n\n\n## Context\nc\n", block),
            "## Next\n- [ ] a\n- Carried from x\n\n\n## Context\nc\n"
        );
        assert_eq!(
            insert("## Next\n- [ ] a", block),
            "## Next\n- [ ] a\n- Carried from x\n"
        );
        assert_eq!(insert("## Next\n", block), "## Next\n- Carried from x\n");
        assert_eq!(
            insert("## Working On\nw\n", block),
            "## Working On\nw\n\n## Next\n- Carried from x\n"
        );
    }

    #[test]
    fn secrets_in_carried_items_are_redacted() {
        let state = claude_state("- [ ] Rotate the key AKIAIOSFODNN7EXAMPLE now\n");
        let text = render(&carried(&sources(Some(&state), &[])));
        assert!(!text.contains("AKIAIOSFODNN7EXAMPLE"), "{text}");
        assert!(text.contains(crate::megg::secrets::REDACTED), "{text}");
    }
}
