//! The README and the guides as a reader meets them: every relative link (and its `#anchor`)
//! resolves inside the crate, the README fits on a screen and opens with the two commands, its
//! picture is what `rigscope render` draws, and the command tables name only commands and
//! options the binary has.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::cli::rigscope;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The README, the top-level guides and every page under docs/.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> =
        ["README.md", "PERFORMANCE.md", "FUZZING.md"].iter().map(|f| root().join(f)).collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// Lines outside fenced code blocks, each with its inline code spans blanked out, so that
/// `[a](b)` written as an example in code is not taken for a link.
fn prose_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut out = String::new();
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
                // Keeps a link text that is code, "[`check`](x)", a link.
                out.push('`');
            } else if !in_code {
                out.push(c);
            }
        }
        lines.push(out);
    }
    lines
}

/// Link targets: inline `[text](target)` and reference definitions `[name]: target`.
fn links(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
        if let Some(def) = line.trim_start().strip_prefix('[')
            && let Some((_, target)) = def.split_once("]: ")
        {
            targets.push(target.trim().to_string());
        }
    }
    targets
}

/// GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, a repeated
/// heading suffixed `-1`, `-2`, ...
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let Some(title) = line.strip_prefix('#').filter(|_| !fenced) else { continue };
        let title = title.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut unique = slug.clone();
        let mut n = 0;
        while seen.contains(&unique) {
            n += 1;
            unique = format!("{slug}-{n}");
        }
        seen.insert(unique);
    }
    seen
}

/// What is wrong with each relative link of `page`, if anything; targets must be inside
/// `within` (a published crate holds nothing else).
fn broken_links(page: &Path, text: &str, within: &Path) -> Vec<String> {
    let dir = page.parent().expect("a page is in a folder");
    let mut broken = Vec::new();
    for target in links(text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() { page.to_path_buf() } else { dir.join(path) };
        let Ok(file) = file.canonicalize() else {
            broken.push(format!("{target}: no such file"));
            continue;
        };
        if !file.starts_with(within.canonicalize().expect("a folder")) {
            broken.push(format!("{target}: outside the crate"));
            continue;
        }
        if let Some(anchor) = anchor
            && !anchors(&read(&file)).contains(anchor)
        {
            broken.push(format!("{target}: no heading with that anchor in {}", file.display()));
        }
    }
    broken
}

#[test]
fn the_link_check_finds_what_it_should() {
    // A page of known links, written into a folder inside the crate's target dir.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("docs-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let page = dir.join("page.md");
    let text = "# A page\n\n## Two words\n\n[ok](page.md) [ok](#two-words) [ok](page.md#a-page) \
                [`code`](page.md)\n[gone](missing.md) [gone](#no-such-heading) [web](https://example.com)\n\
                `[not](a-link.md)`\n```\n[not](in-a-fence.md)\n```\n[ref]: also-missing.md\n";
    std::fs::write(&page, text).expect("write");
    assert_eq!(
        links(text),
        [
            "page.md",
            "#two-words",
            "page.md#a-page",
            "page.md",
            "missing.md",
            "#no-such-heading",
            "https://example.com",
            "also-missing.md"
        ]
    );
    assert_eq!(
        broken_links(&page, text, &dir),
        [
            "missing.md: no such file",
            &format!(
                "#no-such-heading: no heading with that anchor in {}",
                page.canonicalize().expect("page").display()
            ),
            "also-missing.md: no such file"
        ]
    );
    // Anchors as GitHub writes them for code, punctuation and repeated headings.
    let headings =
        anchors("# `check --json`\n## The exporter loop: live reload\n## Two words\n## Two words\n");
    let expected: BTreeSet<String> =
        ["check---json", "the-exporter-loop-live-reload", "two-words", "two-words-1"]
            .map(String::from)
            .into();
    assert_eq!(headings, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every `.md` file a page names by a path from here, in a link or in code: the words that
/// end in `.md` and start with `../`, `./` or `/` (other paths cite another repository's
/// files, `specification/0.0/README.md`), with what surrounds them in text trimmed off.
fn named_pages(text: &str) -> Vec<String> {
    text.split(|c: char| c.is_whitespace() || "`()[]<>\"'*,;".contains(c))
        .map(|w| w.trim_end_matches(['.', ':']))
        .map(|w| w.split('#').next().unwrap_or(w))
        .filter(|w| w.ends_with(".md") && (w.starts_with("../") || w.starts_with("./") || w.starts_with('/')))
        .map(String::from)
        .collect()
}

#[test]
fn no_page_names_a_guide_outside_the_repository() {
    assert_eq!(
        named_pages("see `../shared/docs/skinning.md`, \"x\"; [a](../README.md#top). Or ./vrm.md: spec/a.md"),
        ["../shared/docs/skinning.md", "../README.md", "./vrm.md"]
    );
    let root = root().canonicalize().expect("root");
    let mut outside = Vec::new();
    for page in pages() {
        let dir = page.parent().expect("a page is in a folder").to_path_buf();
        for name in named_pages(&read(&page)) {
            // Relative to the page, as a link reads it, or to the crate, as prose often does.
            let found = [dir.join(&name), root.join(&name)]
                .iter()
                .any(|p| p.canonicalize().is_ok_and(|p| p.starts_with(&root)));
            if !found {
                outside.push(format!("{}: {name}", page.display()));
            }
        }
    }
    assert!(
        outside.is_empty(),
        "pages naming guides that are not in the repository:\n{}",
        outside.join("\n")
    );
}

#[test]
fn every_link_in_the_readme_and_guides_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = read(&page);
        checked += links(&text).len();
        broken.extend(
            broken_links(&page, &text, &root()).into_iter().map(|b| format!("{}: {b}", page.display())),
        );
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    // The README alone links every guide; a parser that found nothing would pass vacuously.
    assert!(checked >= 10, "only {checked} links found");
}

#[test]
fn the_readme_fits_on_a_screen_and_opens_with_the_two_commands() {
    let readme = read(&root().join("README.md"));
    assert!(readme.len() < 15_000, "README.md is {} bytes", readme.len());
    let mut lines =
        readme.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#') && !l.starts_with("```"));
    assert!(lines.next().is_some_and(|l| l.starts_with("cargo run --release")), "{readme}");
    assert!(lines.next().is_some_and(|l| l.starts_with("cargo test")), "{readme}");
}

/// The README's picture is a `$ rigscope render ...` line and what it prints, in a text block.
#[test]
fn the_readme_picture_is_what_render_draws() {
    let readme = read(&root().join("README.md"));
    let start = readme.find("```text\n$ rigscope render ").expect("a render block in the README");
    let block = &readme[start + "```text\n$ ".len()..];
    let block = &block[..block.find("\n```").expect("the block ends")];
    let (command, picture) = block.split_once('\n').expect("a command line, then the picture");
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rigscope"))
        .args(&args)
        .current_dir(root())
        .output()
        .expect("run rigscope");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let drawn = String::from_utf8_lossy(&out.stdout);
    // Trailing blanks are not part of what a reader sees, and editors drop them.
    let trim = |s: &str| s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n").trim_end().to_string();
    assert_eq!(trim(picture), trim(&drawn), "README picture differs from `{command}`");
    assert!(drawn.chars().any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)), "the picture has braille");
}

/// The `--long` options a text names, whole (`--tol` is not `--tolerance`).
fn long_options(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(String::from)
        .collect()
}

/// Every row of a command table names a real command and only options that command has.
#[test]
fn the_command_tables_match_the_binary() {
    let top = rigscope(&["--help"]).stdout;
    let commands: Vec<String> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .collect();
    assert!(commands.contains(&"inspect".to_string()), "{top}");
    for page in ["README.md", "docs/commands.md"] {
        let text = read(&root().join(page));
        let mut named = BTreeSet::new();
        for row in text.lines().filter(|l| l.starts_with("| `rigscope")) {
            // Every `rigscope ...` code span of the row's first cell.
            let cell = row.split(" | ").next().unwrap_or_default();
            for span in cell.split('`').skip(1).step_by(2) {
                let sub = span.split_whitespace().nth(1).filter(|w| commands.iter().any(|c| c == w));
                if let Some(sub) = sub {
                    named.insert(sub.to_string());
                }
                let options = long_options(span);
                if options.is_empty() {
                    continue;
                }
                let help = long_options(&match sub {
                    Some(sub) => rigscope(&[sub, "--help"]).stdout,
                    None => top.clone(),
                });
                for option in options {
                    assert!(help.contains(&option), "{page}: `{span}`: {option} is not in its --help");
                }
            }
        }
        // Every command but clap's own `help` has a row.
        for command in commands.iter().filter(|c| *c != "help") {
            assert!(named.contains(command), "{page}: no row for `rigscope {command}`");
        }
    }
}
