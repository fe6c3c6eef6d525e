//! The `paimon-parity` binary: exit statuses and messages for good and bad input.
//!
//! By topic: `replay_reports` (a replay's summary, matrix, JSON, JUnit and HTML reports, its verdicts and
//! Ctrl-C), `errors` (bad input and usage errors: exit status 2 naming what is wrong) and `commands` (the
//! other subcommands and flags: `inspect`, `bench`, `completions`, `--version`, `--help`, a closed stdout).

mod commands;
mod errors;
mod flags;
mod reference;
mod replay_reports;
