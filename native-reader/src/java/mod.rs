//! Java behaviour the released reader's results depend on, written once: Paimon's MurmurHash
//! (`MurmurHashUtils`), the `hashCode`s of the key objects Java collections hash, `java.util.HashMap`/`HashSet`
//! iteration order, `java.util.PriorityQueue`'s array layout, `java.math.BigDecimal` rescaling and
//! parsing, and `java.time` values in JSON and `Duration.toString()`. Each function's doc names the Java class and method it mirrors.

pub(crate) mod big_decimal;
pub(crate) mod hash_code;
pub mod hash_map;
pub(crate) mod murmur_hash;
pub mod priority_queue;
pub(crate) mod time;
