//! cargo-fuzz target `deletion_vector`: see `paimon_parity_fuzz::deletion_vector`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| paimon_parity_fuzz::deletion_vector(data));
