//! The interactive resume prompt in a real pseudo-terminal: tmux runs megg, sends keys, and
//! reads the screen. Only the system's package manager installs tmux (`.ci/run` does): without
//! it these tests say so in one line and skip, and under `CI` they fail
//! (`common::provision::tmux`).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::{Git, NOW, Project};

const PLAN: &str = "docs/plans/2026-01-15-feat-pty-flow-plan.md";
const FILE: &str = ".pty-flow.local.md";

pub(crate) struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `megg args` in a detached session, in `dir`, recording its exit code.
    pub(crate) fn start(p: &Project, args: &str) -> Option<Self> {
        crate::common::provision::tmux()?;
        let socket = format!(
            "megg-test-{}",
            std::process::id() ^ p.root().as_os_str().len() as u32 ^ rand_suffix()
        );
        let megg = assert_cmd::cargo::cargo_bin("megg");
        let script = format!(
            "cd '{}' && env -u NO_COLOR MEGG_NOW={} MEGG_CACHE_DIR= HOME='{}' '{}' {args}; echo $? > '{}'; sleep 60",
            p.root().display(),
            "2026-11-22T13:00:00Z",
            p.root().display(),
            megg.display(),
            p.path("exit-code").display()
        );
        let ok = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "120",
                "-y",
                "40",
                "sh",
                "-c",
                &script,
            ])
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux new-session failed");
        Some(Self { socket })
    }

    pub(crate) fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-J"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen with its colours, as SGR escapes.
    fn screen_styled(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-e", "-J"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits (bounded) until the screen shows `text`.
    pub(crate) fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "never saw {text:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        for k in keys {
            let ok = Command::new("tmux")
                .args(["-L", &self.socket, "send-keys", k])
                .status()
                .unwrap()
                .success();
            assert!(ok);
            std::thread::sleep(Duration::from_millis(80));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

fn rand_suffix() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0)
}

pub(crate) fn exit_code(p: &Project) -> i32 {
    let start = Instant::now();
    loop {
        if let Ok(s) = std::fs::read_to_string(p.path("exit-code"))
            && let Ok(n) = s.trim().parse()
        {
            return n;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "megg did not exit"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn saved() -> Project {
    let p = Project::new();
    Git::init(p.root(), "main").commit("main", crate::epoch(NOW) - 3600, "init");
    p.write(PLAN, "# PTY flow\n");
    p.ok("", &["checkpoint", "save", PLAN]);
    p
}

fn checkpoint(p: &Project) -> String {
    std::fs::read_to_string(Path::new(&p.path(FILE))).unwrap_or_default()
}

#[test]
fn pty_prompt_view_then_resume_with_the_preselected_option() {
    let p = saved();
    let Some(t) = Tmux::start(&p, "checkpoint resume --for work") else {
        return;
    };
    let screen = t.wait_for("Found previous session for 'pty-flow'");
    assert!(screen.contains("Resume (recommended)"), "{screen}");
    // Down twice to "View", Enter: the file is shown and the question comes back.
    t.keys(&["Down", "Down", "Enter"]);
    t.wait_for("- [ ] Branch created");
    let again = t.screen();
    assert!(
        again
            .matches("Found previous session for 'pty-flow'")
            .count()
            >= 2,
        "{again}"
    );
    // Enter on the preselected (recommended) option: Resume.
    t.keys(&["Enter"]);
    t.wait_for("Resumed 'pty-flow' (phase work)");
    assert_eq!(exit_code(&p), 0);
    let text = checkpoint(&p);
    assert!(text.contains("phase: work\n"), "{text}");
    assert!(text.contains("updated: 2026-11-22T13:00:00Z\n"), "{text}");
}

#[test]
fn pty_escape_changes_nothing_and_exits_130() {
    let p = saved();
    let before = checkpoint(&p);
    let Some(t) = Tmux::start(&p, "checkpoint resume") else {
        return;
    };
    t.wait_for("Found previous session");
    t.keys(&["Escape"]);
    assert_eq!(exit_code(&p), 130);
    assert_eq!(checkpoint(&p), before);
}

#[test]
fn pty_ctrl_c_changes_nothing_and_exits_130() {
    let p = saved();
    let before = checkpoint(&p);
    let Some(t) = Tmux::start(&p, "checkpoint resume") else {
        return;
    };
    t.wait_for("Found previous session");
    t.keys(&["Down", "C-c"]);
    assert_eq!(exit_code(&p), 130);
    assert_eq!(checkpoint(&p), before);
}

#[test]
fn pty_start_fresh_deletes() {
    let p = saved();
    let Some(t) = Tmux::start(&p, "checkpoint resume") else {
        return;
    };
    t.wait_for("Found previous session");
    t.keys(&["Down", "Enter"]);
    t.wait_for("Started fresh");
    assert_eq!(exit_code(&p), 0);
    assert!(!p.path(FILE).exists());
}

/// With `--json` on a terminal megg never prompts: it prints the report and exits.
#[test]
fn pty_json_never_prompts() {
    let p = saved();
    let Some(t) = Tmux::start(&p, "checkpoint resume --json") else {
        return;
    };
    let screen = t.wait_for("\"action\": null");
    assert!(
        !screen.contains("Resume (recommended) —"),
        "no prompt drawn"
    );
    assert_eq!(exit_code(&p), 0);
}

/// `state write` with nothing to read and stdin on a terminal fails at once with a hint.
#[test]
fn pty_state_write_never_waits_for_a_terminal() {
    let p = Project::new();
    p.domain("", "P");
    let Some(t) = Tmux::start(&p, "state write") else {
        return;
    };
    let screen = t.wait_for("hint: pass --content");
    assert!(screen.contains("error: no state content given"), "{screen}");
    assert_eq!(exit_code(&p), 1);
    assert!(!p.path(".megg/state.md").exists());
}

/// The line of `screen` holding `text`; panics (with the screen) when there is none.
fn line_of(screen: &str, text: &str) -> usize {
    screen
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no line with {text:?}; screen:\n{screen}"))
}

/// Issue 14: the prompt appeared with the staleness, divergence and missing-plan warnings not
/// shown (they were printed after the answer), under follow-up `--choice` lines meant for
/// agents. While the prompt waits, the report and every warning are above it, and no
/// follow-up command is on screen.
#[test]
fn pty_resume_prompt_shows_the_warnings_before_asking_and_no_follow_up_commands() {
    let p = Project::new();
    let git = Git::init(p.root(), "main");
    git.commit("main", crate::epoch("2026-11-01T00:00:00Z"), "init");
    p.write(PLAN, "# PTY flow\n");
    // Saved ten days before the prompt (stale), on main, whose tip is recorded.
    let out = p
        .megg("")
        .env("MEGG_NOW", "2026-11-12T13:00:00Z")
        .args(["checkpoint", "save", PLAN, "--branch", "main"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    git.commit("main", crate::epoch("2026-11-13T00:00:00Z"), "two");
    git.commit("main", crate::epoch("2026-11-14T00:00:00Z"), "three");
    std::fs::remove_file(p.path(PLAN)).unwrap();
    let before = checkpoint(&p);

    let Some(t) = Tmux::start(&p, "checkpoint resume --for work") else {
        return;
    };
    let screen = t.wait_for("Found previous session for 'pty-flow' ›");
    let prompt = line_of(&screen, "Found previous session for 'pty-flow' ›");
    for above in [
        "branch:   main",
        "warning: This state is 10 days old and may be outdated",
        &format!("warning: Plan file not found: {PLAN}"),
        "warning: Branch 'main' has 2 new commits since state was saved.",
    ] {
        assert!(
            line_of(&screen, above) < prompt,
            "{above:?}; screen:\n{screen}"
        );
    }
    assert!(!screen.contains("--choice"), "{screen}");
    assert!(!screen.contains("megg checkpoint resume"), "{screen}");
    assert!(!p.path("exit-code").exists(), "still waiting");
    // Start fresh is recommended (the plan is gone) and preselected.
    assert!(
        line_of(&screen, "❯ Start fresh (recommended)") > prompt,
        "{screen}"
    );
    t.keys(&["Escape"]);
    assert_eq!(exit_code(&p), 130);
    assert_eq!(checkpoint(&p), before);
    // Shown once: not repeated after the answer.
    let end = t.screen();
    assert_eq!(end.matches("Plan file not found").count(), 1, "{end}");
}

/// Issue 38 item 7: a checkpoint saved on another branch than the one checked out was
/// offered for resuming without a word; the warning is above the prompt, before the choice.
#[test]
fn pty_resume_prompt_warns_of_a_checkpoint_saved_on_another_branch() {
    let p = Project::new();
    let git = Git::init(p.root(), "main");
    git.commit("main", crate::epoch(NOW) - 7200, "init");
    git.commit("feat/auth", crate::epoch(NOW) - 3600, "auth");
    p.write(PLAN, "# PTY flow\n");
    p.ok("", &["checkpoint", "save", PLAN, "--branch", "feat/auth"]);
    let before = checkpoint(&p);

    let Some(t) = Tmux::start(&p, "checkpoint resume --for work") else {
        return;
    };
    let screen = t.wait_for("Found previous session for 'pty-flow' ›");
    let prompt = line_of(&screen, "Found previous session for 'pty-flow' ›");
    let warning = line_of(
        &screen,
        "warning: Checkpoint was saved on branch 'feat/auth' but 'main' is checked out",
    );
    assert!(warning < prompt, "{screen}");
    t.keys(&["Escape"]);
    assert_eq!(exit_code(&p), 130);
    assert_eq!(checkpoint(&p), before);
}

/// Issue 14: the picker for several checkpoints showed no age, phase or progress.
#[test]
fn pty_picker_for_several_checkpoints_shows_age_phase_and_progress() {
    let p = Project::new();
    Git::init(p.root(), "main").commit("main", crate::epoch("2026-11-01T00:00:00Z"), "init");
    p.write(PLAN, "# PTY flow\n");
    let billing = "docs/plans/2026-11-20-feat-billing-plan.md";
    p.write(billing, "# Billing\n");
    for (plan, at, phase) in [
        (PLAN, "2026-11-19T13:00:00Z", "plan-complete"),
        (billing, "2026-11-22T10:00:00Z", "work"),
    ] {
        let out = p
            .megg("")
            .env("MEGG_NOW", at)
            .args(["checkpoint", "save", plan, "--phase", phase])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let out = p
        .megg("")
        .env("MEGG_NOW", "2026-11-22T10:00:00Z")
        .args([
            "checkpoint",
            "update",
            "billing",
            "--check",
            "Branch created",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");

    let Some(t) = Tmux::start(&p, "checkpoint resume") else {
        return;
    };
    let screen = t.wait_for("Several saved sessions; which one? ›");
    let prompt = line_of(&screen, "Several saved sessions; which one? ›");
    // Newest first, the first preselected.
    let billing = line_of(&screen, "❯ billing — work, 2/6 done, 3 hours old");
    let flow = line_of(&screen, "pty-flow — plan-complete, 1/6 done, 3 days old");
    assert!(prompt < billing && billing < flow, "{screen}");
    t.keys(&["Escape"]);
    assert_eq!(exit_code(&p), 130);
}

/// On a terminal `megg search` shows the words that matched in colour (and only those): the
/// escape sequences reach the screen, and nothing else of the text changes.
#[test]
fn pty_search_highlights_the_matching_words() {
    let p = Project::new();
    p.domain("", "Shop");
    p.write(
        ".megg/knowledge.md",
        "# Knowledge\n\n---\n\n## 2026-02-01 - Retry payment webhooks\n**Type:** gotcha\n**Topics:** payments\n\nStripe retries webhooks; handlers must be idempotent.\n",
    );
    let Some(t) = Tmux::start(&p, "search retried") else {
        return;
    };
    t.wait_for("1 of 1 match shown");
    assert_eq!(exit_code(&p), 0);
    let styled = t.screen_styled();
    let line = |word: &str| {
        styled
            .lines()
            .find(|l| l.contains(word))
            .unwrap_or_else(|| panic!("no {word:?} on screen:\n{styled}"))
            .to_string()
    };
    // An escape right before each matching word; none before the others.
    let title = line("payment webhooks");
    let before = |l: &str, word: &str| l[..l.find(word).unwrap()].to_string();
    assert!(before(&title, "Retry").contains('\x1b'), "{title:?}");
    assert!(title.contains(" payment webhooks"), "{title:?}");
    let snippet = line("idempotent");
    assert!(before(&snippet, "retries").contains('\x1b'), "{snippet:?}");
    assert!(!before(&snippet, "Stripe").contains('\x1b'), "{snippet:?}");
}
