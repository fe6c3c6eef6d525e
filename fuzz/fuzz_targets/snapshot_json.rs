//! cargo-fuzz target `snapshot_json`: see `paimon_parity_fuzz::snapshot_json`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| paimon_parity_fuzz::snapshot_json(data));
