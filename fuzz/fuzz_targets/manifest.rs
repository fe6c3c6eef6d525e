//! cargo-fuzz target `manifest`: see `paimon_parity_fuzz::manifest`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| paimon_parity_fuzz::manifest(data));
