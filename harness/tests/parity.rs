//! The parity tests that run on every supported release (scripts/test runs this binary once per release, with
//! `PAIMON_PARITY_PAIMON_VERSION` set): the committed corpora replayed against the released reader, C00 written
//! and replayed, the audit, the crash-point sweep, the remedies, the system tables, and `scan.version` on edited
//! copies.
//!
//! The harness's tests are a few binaries of many modules (each test binary links arrow, parquet, the JNI bridge
//! and DataFusion, about 450 MB each in the dev profile): `parity`, `stores` (a real S3 server), `large_split`
//! (its own counting allocator), `regenerate` (every scenario written again, alone: a writer's compactions
//! depend on the machine's load) and `integration` (the rest). Run one module with a filter:
//! `cargo test -p harness --test parity corpus_parity::`.
mod common;

mod audit;
mod corpora;
mod corpus_c00;
mod corpus_parity;
mod edited;
mod flink_corpora;
mod incremental_diff;
mod remedy;
mod scan_version;
mod sweep;
mod system_tables;
