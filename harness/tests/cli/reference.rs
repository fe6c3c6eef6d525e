//! The book's command-line reference (`docs/src/reference/cli.md`) is generated from clap's command tree, so
//! `--help` and the book cannot disagree: this test renders the page and compares it with the committed one.
//! `PAIMON_PARITY_BLESS=1 cargo test -p harness --test integration cli::reference` rewrites the page after a CLI change.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::CommandFactory;
use harness::cli::Cli;

/// The committed page, relative to the repository root.
const PAGE: &str = "docs/src/reference/cli.md";

/// A table cell: one line, `|` escaped.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// `-q, --quiet`, `--json <FILE>`, `<TABLE>...` as the usage line spells the argument.
fn spelling(arg: &clap::Arg) -> String {
    let values = arg
        .get_value_names()
        .map(|names| {
            names
                .iter()
                .map(|n| format!("<{n}>"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| format!("<{}>", arg.get_id().as_str().to_uppercase()));
    let takes_values = arg.get_action().takes_values();
    match (arg.get_short(), arg.get_long()) {
        (None, None) => {
            let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
            if many {
                format!("{values}...")
            } else {
                values
            }
        }
        (short, Some(long)) => {
            let mut s = short.map(|c| format!("-{c}, ")).unwrap_or_default();
            s.push_str(&format!("--{long}"));
            if takes_values {
                s.push(' ');
                s.push_str(&values);
            }
            s
        }
        (Some(short), None) => format!("-{short}"),
    }
}

/// One section per command, depth first, in clap's order.
fn render(cmd: &mut clap::Command, path: &str, out: &mut String) {
    if cmd.is_hide_set() {
        return;
    }
    let level = if path.contains(' ') { "##" } else { "#" };
    writeln!(out, "{level} `{path}`\n").unwrap();
    if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
        writeln!(out, "{}\n", about.to_string().trim()).unwrap();
    }
    let usage = cmd.render_usage().to_string();
    let usage = usage.trim_start_matches("Usage: ").trim();
    writeln!(out, "```text\n{usage}\n```\n").unwrap();
    let args: Vec<_> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && a.get_id() != "help" && a.get_id() != "version")
        .collect();
    if !args.is_empty() {
        writeln!(out, "| argument | default | meaning |\n|---|---|---|").unwrap();
        for arg in args {
            // A switch's `false` says nothing.
            let switch = matches!(arg.get_action(), clap::ArgAction::SetTrue);
            let defaults: Vec<_> = arg
                .get_default_values()
                .iter()
                .filter(|_| !switch)
                .map(|v| v.to_string_lossy().into_owned())
                .collect();
            let mut help = arg
                .get_long_help()
                .or(arg.get_help())
                .map(|h| h.to_string())
                .unwrap_or_default();
            let possible: Vec<_> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| format!("`{}`", v.get_name()))
                .collect();
            if !possible.is_empty() && arg.get_action().takes_values() {
                write!(help, " (one of {})", possible.join(", ")).unwrap();
            }
            writeln!(
                out,
                "| `{}` | {} | {} |",
                spelling(arg),
                if defaults.is_empty() {
                    String::new()
                } else {
                    format!("`{}`", defaults.join(","))
                },
                cell(&help)
            )
            .unwrap();
        }
        writeln!(out).unwrap();
    }
    let subs: Vec<String> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in subs {
        let sub = cmd.find_subcommand_mut(&name).expect("listed above");
        render(sub, &format!("{path} {name}"), out);
    }
}

/// The page as the current command tree renders it.
fn page() -> String {
    let mut out = String::from(
        "<!-- Generated from the clap model (harness/src/cli/) by harness/tests/cli/reference.rs: do not edit; \
         PAIMON_PARITY_BLESS=1 cargo test -p harness --test integration cli::reference rewrites it. -->\n\n\
         # Command-line reference\n\n\
         Every command, argument and default as `paimon-parity --help` prints them. The pages of the book explain \
         what each does.\n\n",
    );
    let mut cmd = Cli::command();
    cmd.build();
    let subs: Vec<String> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .map(|s| s.get_name().to_owned())
        .collect();
    writeln!(out, "## Global options\n").unwrap();
    let usage = cmd.render_usage().to_string();
    writeln!(
        out,
        "```text\n{}\n```\n",
        usage.trim_start_matches("Usage: ").trim()
    )
    .unwrap();
    for name in subs {
        let sub = cmd.find_subcommand_mut(&name).expect("listed above");
        let mut section = String::new();
        render(sub, &format!("paimon-parity {name}"), &mut section);
        // Each command is a second-level section of the one page.
        for line in section.lines() {
            let line = if let Some(rest) = line.strip_prefix("# ") {
                format!("## {rest}")
            } else if let Some(rest) = line.strip_prefix("## ") {
                format!("### {rest}")
            } else {
                line.to_owned()
            };
            writeln!(out, "{line}").unwrap();
        }
    }
    out
}

#[test]
fn the_books_command_reference_is_the_clap_model() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = root.join(PAGE);
    let want = page();
    if std::env::var_os("PAIMON_PARITY_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let first = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| have.lines().count().min(want.lines().count()));
        panic!(
            "{PAGE} is not what the clap model renders (first difference at line {}: {:?} vs {:?}); after a \
             CLI change run PAIMON_PARITY_BLESS=1 cargo test -p harness --test integration cli::reference",
            first + 1,
            have.lines().nth(first),
            want.lines().nth(first)
        );
    }
}
