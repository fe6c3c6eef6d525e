//! cargo-fuzz target `binary_row`: see `paimon_parity_fuzz::binary_row`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| paimon_parity_fuzz::binary_row(data));
