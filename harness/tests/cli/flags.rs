//! A flag that several commands take means and reads the same everywhere: the same short form and the same
//! value name. Walks clap's command tree of `paimon-parity`, so a new command cannot drift.

use std::collections::BTreeMap;

use clap::CommandFactory;
use harness::cli::Cli;

/// The flags several commands take, with the short form and value name each must have everywhere.
const SHARED: [(&str, Option<char>, Option<&str>); 14] = [
    ("json", None, Some("FILE")),
    ("junit", None, Some("FILE")),
    ("html", None, Some("FILE")),
    ("quiet", Some('q'), None),
    ("verbose", Some('v'), None),
    ("paimon-version", None, Some("VERSION")),
    ("candidate", None, Some("NAME")),
    ("threads", None, Some("N")),
    ("from-snapshot", None, Some("N")),
    ("to-snapshot", None, Some("N")),
    ("snapshot", None, Some("N")),
    ("reader-command", None, Some("NAME=COMMAND")),
    ("reader-timeout", None, Some("SECONDS")),
    ("mode", None, Some("MODE")),
];

/// (command path, long flag) -> (short form, value name).
type Flags = BTreeMap<(String, String), (Option<char>, Option<String>)>;

/// Every (command path, long flag) -> (short, value name) of the tree under `cmd`.
fn walk(cmd: &clap::Command, path: &str, out: &mut Flags) {
    for arg in cmd.get_arguments() {
        if let Some(long) = arg.get_long() {
            let value = arg
                .get_value_names()
                .and_then(|v| v.first())
                .map(|v| v.to_string())
                .filter(|_| arg.get_action().takes_values());
            out.insert((path.to_owned(), long.to_owned()), (arg.get_short(), value));
        }
    }
    for sub in cmd.get_subcommands() {
        walk(sub, &format!("{path} {}", sub.get_name()), out);
    }
}

#[test]
fn shared_flags_have_one_short_form_and_one_value_name_in_every_command() {
    let mut flags = BTreeMap::new();
    walk(&Cli::command(), "paimon-parity", &mut flags);
    let mut wrong = Vec::new();
    let mut seen = BTreeMap::new();
    for ((command, long), (short, value)) in &flags {
        let Some((_, want_short, want_value)) = SHARED.iter().find(|(l, _, _)| l == long) else {
            continue;
        };
        *seen.entry(long.clone()).or_insert(0) += 1;
        // A flag without a value of its own (a switch) is checked for its short form only.
        let value_ok = value.is_none() || value.as_deref() == *want_value;
        if short != want_short || !value_ok {
            wrong.push(format!(
                "{command} --{long}: short {short:?}, value {value:?}; want short {want_short:?}, value {want_value:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Each rule is of a flag some command takes (a misspelt rule would check nothing).
    for (long, _, _) in SHARED {
        assert!(seen.contains_key(long), "--{long}: {seen:?}");
    }
}

#[test]
fn every_command_that_prints_a_summary_can_be_quiet() {
    // `replay -q` prints only each run's summary line; `sweep -q` its totals and verdict.
    let mut flags = BTreeMap::new();
    walk(&Cli::command(), "paimon-parity", &mut flags);
    for command in ["replay", "sweep"] {
        let path = format!("paimon-parity {command}");
        assert_eq!(
            flags
                .get(&(path.clone(), "quiet".to_owned()))
                .map(|(s, _)| *s),
            Some(Some('q')),
            "{path} has no -q/--quiet"
        );
    }
}
