//! The iteration order of `java.util.HashMap` and `java.util.HashSet` (JDK 8 and later).

/// How keys went into a Java `HashMap` (JDK 8 and later), which decides their order within a bin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JavaInsert {
    /// `put`/`HashSet.add`: appended to the bin; the table doubles after an insert that makes the size
    /// exceed the threshold.
    Put,
    /// `computeIfAbsent`: prepended to the bin; the table doubles before an insert when the size already
    /// exceeds the threshold.
    ComputeIfAbsent,
}

/// The iteration order of a Java `HashMap`/`HashSet` (default capacity 16, load factor 0.75) whose distinct
/// keys, with these `hashCode()`s, were inserted in this order with `insert`: by bin (`(h ^ h >>> 16) &
/// (capacity − 1)` at the final capacity), then within a bin in insertion order ([`JavaInsert::Put`]) or in
/// reverse insertion order ([`JavaInsert::ComputeIfAbsent`]); resizes keep the order within a bin. Bins that
/// Java turns into trees (8 or more keys in one bin of a table of 64 bins or more) are not modelled.
pub fn java_hash_order<T>(items: Vec<(i32, T)>, insert: JavaInsert) -> Vec<T> {
    let (mut capacity, mut size) = (16usize, 0usize);
    for _ in 0..items.len() {
        if insert == JavaInsert::ComputeIfAbsent && size > capacity / 4 * 3 {
            capacity *= 2;
        }
        size += 1;
        if insert == JavaInsert::Put && size > capacity / 4 * 3 {
            capacity *= 2;
        }
    }
    let n = items.len();
    let mut keyed: Vec<(usize, usize, T)> = items
        .into_iter()
        .enumerate()
        .map(|(i, (h, t))| {
            let h = h as u32;
            let order = match insert {
                JavaInsert::Put => i,
                JavaInsert::ComputeIfAbsent => n - i,
            };
            (((h ^ (h >> 16)) as usize) & (capacity - 1), order, t)
        })
        .collect();
    keyed.sort_by_key(|(bin, order, _)| (*bin, *order));
    keyed.into_iter().map(|(_, _, t)| t).collect()
}
