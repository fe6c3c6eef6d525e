//! cargo-fuzz target `partition_path`: see `paimon_parity_fuzz::partition_path_input`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| paimon_parity_fuzz::partition_path_input(data));
