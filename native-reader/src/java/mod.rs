//! Java's behaviour the released reader's orders depend on, modelled once: `java.util.HashMap`/`HashSet`
//! iteration order and `java.util.PriorityQueue`'s array layout.

pub mod hash_map;
pub mod priority_queue;
