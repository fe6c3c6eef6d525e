//! The examples of README.md and of the book (`docs/src/`) cannot rot:
//!
//! - every `console` block is run by `trycmd` from the repository root and its output compared, with times and
//!   paths masked by `[..]` and `...` in the page itself;
//! - every other `paimon-parity` command in a code block, and every inline `` `replay --flag` `` span, is parsed
//!   with the clap model: a command line must parse, and a synopsis (`[--flag ...]`, `TABLE...`) may name only
//!   flags its command takes;
//! - every `scripts/NAME` a page names exists, and every relative link points at a file.

use std::path::{Path, PathBuf};

use clap::CommandFactory;
use harness::cli::Cli;

/// The repository root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// README.md and every page of the book, relative to the root.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let root = root();
    let mut out = vec![root.join("README.md")];
    walk(&root.join("docs/src"), &mut out);
    out.into_iter()
        .map(|p| p.strip_prefix(&root).unwrap().to_path_buf())
        .collect()
}

/// A fenced code block: its info string, the line of its opening fence (1-based) and its lines.
struct Block {
    lang: String,
    line: usize,
    body: Vec<String>,
}

/// The fenced code blocks of `text` (``` fences; ~~~ is not used in these pages).
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            match open.take() {
                Some(block) => out.push(block),
                None => {
                    open = Some(Block {
                        lang: info.trim().to_owned(),
                        line: i + 1,
                        body: Vec::new(),
                    })
                }
            }
        } else if let Some(block) = open.as_mut() {
            block.body.push(line.to_owned());
        }
    }
    out
}

/// The `paimon-parity ...` command lines of a shell block: continuations joined, comments dropped.
fn shell_commands(block: &Block) -> Vec<String> {
    let mut joined = Vec::new();
    let mut current = String::new();
    for line in &block.body {
        let line = line.trim();
        if let Some(head) = line.strip_suffix('\\') {
            current.push_str(head);
            current.push(' ');
            continue;
        }
        current.push_str(line);
        joined.push(std::mem::take(&mut current));
    }
    joined
        .into_iter()
        .filter_map(|line| {
            let line = match line.find(" # ") {
                Some(i) => line[..i].trim().to_owned(),
                None => line.trim().to_owned(),
            };
            line.starts_with("paimon-parity ").then_some(line)
        })
        .collect()
}

/// Whether a command line is a synopsis (optional parts, placeholders) rather than a runnable example.
fn is_synopsis(line: &str) -> bool {
    line.contains('[') || line.contains("...") || line.contains('|') || line.contains('…')
}

/// The subcommand a line names (`replay`, `report merge`) and the long flags it spells.
fn command_and_flags(line: &str) -> (Vec<String>, Vec<String>) {
    // Quoted values stay one word; a redirection or pipe ends the command.
    let split =
        shlex::split(line).unwrap_or_else(|| line.split_whitespace().map(str::to_owned).collect());
    let words: Vec<&str> = split
        .iter()
        .map(String::as_str)
        .skip(1)
        .take_while(|w| !matches!(*w, ">" | ">>" | "|" | "&&" | ";" | "2>&1"))
        .collect();
    let mut path = Vec::new();
    let mut cmd = Cli::command();
    for word in &words {
        match cmd.find_subcommand(word) {
            Some(sub) => {
                path.push(word.to_string());
                cmd = sub.clone();
            }
            None => break,
        }
    }
    let flags = words
        .iter()
        .flat_map(|w| w.split(['[', ']', '|', '(', ')', ',']))
        .filter_map(|w| w.strip_prefix("--"))
        .map(|w| w.split('=').next().unwrap().to_owned())
        .filter(|w| !w.is_empty())
        .collect();
    (path, flags)
}

/// The long flags `path` (a subcommand path) takes, with the global ones.
fn flags_of(path: &[String]) -> Option<Vec<String>> {
    let mut cmd = Cli::command();
    cmd.build();
    let mut flags: Vec<String> = cmd
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_owned))
        .collect();
    for name in path {
        cmd = cmd.find_subcommand(name)?.clone();
        flags.extend(
            cmd.get_arguments()
                .filter_map(|a| a.get_long().map(str::to_owned)),
        );
    }
    flags.extend(["help".to_owned(), "version".to_owned()]);
    Some(flags)
}

/// A problem with one command line, or None.
fn check_command(line: &str) -> Option<String> {
    let (path, flags) = command_and_flags(line);
    if path.is_empty() {
        return Some(format!("`{line}`: no paimon-parity command"));
    }
    let known = flags_of(&path).expect("the path was found above");
    let unknown: Vec<_> = flags.iter().filter(|f| !known.contains(f)).collect();
    if !unknown.is_empty() {
        return Some(format!(
            "`{line}`: `paimon-parity {}` takes no {}",
            path.join(" "),
            unknown
                .iter()
                .map(|f| format!("--{f}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !is_synopsis(line) {
        let mut args = shlex::split(line).unwrap_or_default();
        if let Some(end) = args
            .iter()
            .position(|w| matches!(w.as_str(), ">" | ">>" | "|" | "&&" | ";"))
        {
            args.truncate(end);
        }
        if let Err(e) = Cli::command().try_get_matches_from(&args) {
            let first = e.to_string().lines().next().unwrap_or_default().to_owned();
            return Some(format!("`{line}` does not parse: {first}"));
        }
    }
    None
}

#[test]
fn every_paimon_parity_command_in_the_docs_is_one_the_cli_takes() {
    let root = root();
    let subcommands: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    let mut problems = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(root.join(&page)).unwrap();
        for block in blocks(&text) {
            // Shell blocks; `console` ones run below, `text` ones are output (usage lines, reports).
            if !["", "sh", "bash", "shell"].contains(&block.lang.as_str()) {
                continue;
            }
            for line in shell_commands(&block) {
                checked += 1;
                if let Some(p) = check_command(&line) {
                    problems.push(format!("{}:{}: {p}", page.display(), block.line));
                }
            }
        }
        // Inline spans such as `replay --threads N` or `paimon-parity sweep S --compare`.
        for span in text.split('`').skip(1).step_by(2) {
            let span = span.trim();
            let line = if span.starts_with("paimon-parity ") {
                span.to_owned()
            } else if subcommands
                .iter()
                .any(|s| span.starts_with(&format!("{s} ")) && span.contains(" --"))
            {
                format!("paimon-parity {span}")
            } else {
                continue;
            };
            checked += 1;
            // An inline span is prose: only its flags are checked, never that it parses whole.
            let (path, flags) = command_and_flags(&line);
            let Some(known) = flags_of(&path) else {
                continue;
            };
            for f in flags.iter().filter(|f| !known.contains(f)) {
                problems.push(format!(
                    "{}: `{span}`: `paimon-parity {}` takes no --{f}",
                    page.display(),
                    path.join(" ")
                ));
            }
        }
    }
    assert!(checked > 50, "only {checked} commands found in the docs");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_script_and_relative_link_the_docs_name_exists() {
    let root = root();
    let mut problems = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(root.join(&page)).unwrap();
        let dir = root.join(&page).parent().unwrap().to_path_buf();
        for (i, line) in text.lines().enumerate() {
            for (start, _) in line.match_indices("scripts/") {
                let name: String = line[start..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || "/-_.".contains(*c))
                    .collect();
                let name = name.trim_end_matches('.');
                let preceded = line[..start]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '/' || c == '.');
                if name != "scripts/" && !preceded && !root.join(name).exists() {
                    problems.push(format!(
                        "{}:{}: {name} does not exist",
                        page.display(),
                        i + 1
                    ));
                }
            }
            for (start, _) in line.match_indices("](") {
                let target: String = line[start + 2..]
                    .chars()
                    .take_while(|c| *c != ')')
                    .collect();
                let file = target.split('#').next().unwrap();
                if file.is_empty() || file.contains("://") {
                    continue;
                }
                if !dir.join(file).exists() {
                    problems.push(format!(
                        "{}:{}: the link {target} points at nothing",
                        page.display(),
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_readme_is_a_landing_page_with_the_two_commands_first() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines < 200,
        "README.md has {lines} lines: the reference goes into docs/"
    );
    let first_block = blocks(&text).into_iter().next().expect("a code block");
    let body = first_block.body.join("\n");
    assert!(
        body.contains("scripts/demo") && body.contains("scripts/test"),
        "the first code block of README.md is not the two commands: {body}"
    );
}

/// Runs the `console` examples. They need the Java side of the default release (`scripts/build-java`), which
/// `scripts/test` builds first.
#[test]
fn the_console_examples_print_what_the_docs_say() {
    let root = root();
    let with_examples: Vec<PathBuf> = pages()
        .into_iter()
        .filter(|p| {
            blocks(&std::fs::read_to_string(root.join(p)).unwrap())
                .iter()
                .any(|b| b.lang == "console")
        })
        .collect();
    assert!(
        with_examples.iter().any(|p| p == Path::new("README.md")),
        "README.md has no tested example"
    );
    // The examples name corpora and write outputs relative to the repository root.
    std::env::set_current_dir(&root).unwrap();
    // Their outputs (`retain --out target/docs-examples/...`) go to a fresh folder of the checkout's target/.
    let out = root.join("target/docs-examples");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let cases = trycmd::TestCases::new();
    cases
        .register_bin(
            "paimon-parity",
            Path::new(env!("CARGO_BIN_EXE_paimon-parity")),
        )
        .env("PAIMON_PARITY_PAIMON_VERSION", "1.0.0")
        .env("NO_COLOR", "1")
        .timeout(std::time::Duration::from_secs(600));
    for page in &with_examples {
        cases.case(page);
    }
}

/// The examples `--help` prints (each command's `after_help`) are held to the same rule as the book's.
#[test]
fn every_example_that_help_prints_is_one_the_cli_takes() {
    fn walk(cmd: &clap::Command, out: &mut Vec<String>) {
        if let Some(after) = cmd.get_after_help().or(cmd.get_after_long_help()) {
            for line in after.to_string().lines() {
                let line = line.trim();
                if line.starts_with("paimon-parity ") {
                    out.push(line.to_owned());
                }
            }
        }
        for sub in cmd.get_subcommands() {
            walk(sub, out);
        }
    }
    let mut examples = Vec::new();
    walk(&Cli::command(), &mut examples);
    assert!(
        examples.len() > 10,
        "only {} examples in --help",
        examples.len()
    );
    let problems: Vec<_> = examples.iter().filter_map(|l| check_command(l)).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
