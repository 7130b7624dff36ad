//! The duplicate question of `learn` on a terminal (SPEC §17): an entry like the new one is
//! already there — write it anyway (the default), supersede that one, or write nothing. Asked
//! only when a person is at the terminal: never in a hook, over MCP, without a TTY or with
//! `--json`, where `learn` writes and warns instead. Esc or Ctrl-C: interrupted, nothing written.

use crate::error::{Error, Result};
use crate::megg::knowledge::NewEntry;
use crate::megg::knowledge::write::{Found, Target};
use crate::prompt::Prompter;

/// What the user answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Write the new entries as they are.
    Write,
    /// Write the new entry and move this one to the archive.
    Supersede(Target),
    /// Write nothing.
    Cancel,
}

/// Asks about `found` (the entries like the `new` ones). Superseding is offered for each entry
/// found when one entry is learned and `can_supersede` (it supersedes nothing yet).
pub fn ask(
    p: &mut dyn Prompter,
    new: &[NewEntry],
    found: &[Found],
    can_supersede: bool,
) -> Result<Answer> {
    let named = |f: &Found| match &f.target {
        Some(t) => format!("{} '{}' ({})", t.id, f.heading, f.likeness),
        None => format!("'{}' ({})", f.heading, f.likeness),
    };
    let question = match (found, new) {
        ([f], [_]) => format!(
            "An entry like this exists: {}. Write this one anyway?",
            named(f)
        ),
        _ => {
            for f in found {
                let title = new.get(f.new).map_or("", |e| e.title.as_str());
                p.show(&format!("'{title}' is like {}", named(f)));
            }
            "Entries like these exist. Write anyway?".to_string()
        }
    };
    let mut items = vec![if new.len() == 1 {
        "Yes, write it".to_string()
    } else {
        "Yes, write them".to_string()
    }];
    let targets: Vec<&Target> = if can_supersede && new.len() == 1 {
        // An entry of the same day and title has the new one's id: superseding it is refused
        // (SPEC §17); editing it is the way, which the warning says.
        found
            .iter()
            .filter(|f| !f.same_id(new))
            .filter_map(|f| f.target.as_ref())
            .collect()
    } else {
        Vec::new()
    };
    for t in &targets {
        items.push(format!(
            "Supersede {}: write this one, move '{}' to the archive",
            t.id, t.title
        ));
    }
    items.push("No, write nothing".to_string());
    let picked = p
        .select(&question, &items, 0)?
        .ok_or_else(Error::interrupted)?;
    Ok(match picked {
        0 => Answer::Write,
        i => match targets.get(i - 1) {
            Some(t) => Answer::Supersede((*t).clone()),
            None => Answer::Cancel,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::megg::knowledge::{KnowledgeType, similar::Likeness};
    use crate::prompt::Scripted;

    fn new(title: &str) -> NewEntry {
        NewEntry {
            date: "2026-11-26".into(),
            title: title.into(),
            kind: KnowledgeType::Decision,
            topics: vec!["api".into()],
            content: "text".into(),
        }
    }

    fn found(new: usize, id: &str, likeness: Likeness) -> Found {
        Found {
            new,
            likeness,
            heading: format!("2025-03-01 - Old {id}"),
            target: Some(Target {
                id: id.into(),
                date: Some("2025-03-01".into()),
                title: format!("Old {id}"),
                text: format!("## 2025-03-01 - Old {id}"),
                line: 7,
            }),
        }
    }

    /// SPEC §17: an entry of the same day and title has the new one's id; superseding it is
    /// refused, so the prompt does not offer it.
    #[test]
    fn a_same_day_same_title_entry_is_not_offered_for_superseding() {
        let mut f = found(0, "k1", Likeness::Title);
        f.heading = "2026-11-26 - new".into();
        let mut p = Scripted::new(&["Yes"]);
        assert_eq!(
            ask(&mut p, &[new("New")], &[f], true).unwrap(),
            Answer::Write
        );
        assert!(!p.transcript[0].contains("Supersede"), "{:?}", p.transcript);
    }

    #[test]
    fn one_duplicate_asks_write_supersede_or_nothing_with_write_preselected() {
        let f = [found(0, "k1", Likeness::Text(1))];
        for (answer, expected) in [
            ("Yes", Answer::Write),
            ("Supersede", Answer::Supersede(f[0].target.clone().unwrap())),
            ("No", Answer::Cancel),
        ] {
            let mut p = Scripted::new(&[answer]);
            assert_eq!(ask(&mut p, &[new("New")], &f, true).unwrap(), expected);
            assert_eq!(
                p.transcript,
                [
                    "? An entry like this exists: k1 '2025-03-01 - Old k1' (the same text but for 1 word). Write this one anyway? [Yes, write it | Supersede k1: write this one, move 'Old k1' to the archive | No, write nothing] default=Yes, write it"
                ]
            );
        }
    }

    #[test]
    fn escape_is_an_interruption_and_several_new_entries_offer_no_supersede() {
        let mut p = Scripted::new(&["<esc>"]);
        let err = ask(
            &mut p,
            &[new("New")],
            &[found(0, "k1", Likeness::Title)],
            true,
        );
        assert_eq!(err.unwrap_err().exit_code(), 130);

        let f = [
            found(0, "k1", Likeness::Title),
            found(1, "k2", Likeness::Text(0)),
        ];
        let mut p = Scripted::new(&["Yes"]);
        let answer = ask(&mut p, &[new("A"), new("B")], &f, true).unwrap();
        assert_eq!(answer, Answer::Write);
        assert_eq!(
            p.transcript,
            [
                "'A' is like k1 '2025-03-01 - Old k1' (the same title)",
                "'B' is like k2 '2025-03-01 - Old k2' (the same text)",
                "? Entries like these exist. Write anyway? [Yes, write them | No, write nothing] default=Yes, write them",
            ]
        );
        // Already superseding: only write or not.
        let mut p = Scripted::new(&["No"]);
        let answer = ask(&mut p, &[new("A")], &f[..1], false).unwrap();
        assert_eq!(answer, Answer::Cancel);
    }
}
