//! The harness's other integration tests, a module each: the `paimon-parity` command's subcommands, reports,
//! errors and flags (`cli`), detection of planted differences, scan modes, bad input, evidence bundles, external
//! and peer readers, Spark, SQL, HTML reports and the docs' examples. `cargo test -p harness --test integration
//! cli::` runs one module.
mod common;
mod damage;
mod s3server;
mod synthetic;

mod audit_dv;
mod audit_flink;
mod audit_pairs;
mod audit_uncommitted;
mod bad_input;
mod branches;
mod bundle;
mod candidate;
mod cli;
mod decoding;
mod detection;
mod docs;
mod evidence_bundles;
mod external_readers;
mod html_report;
mod jvm_faults;
mod locations;
mod modes;
mod parallel;
mod peer_readers;
mod pinned;
mod planted;
mod planted_e2e;
mod read_only;
mod shards;
mod spark;
mod sql;
mod stock_at;
mod sweep_descriptors;
mod upgrade_matrix;
