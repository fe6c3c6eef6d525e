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

/// The iteration order of `new HashMap<>(expected)` filled with `put` of keys with these `hashCode()`s, in
/// this order (as `RowBlockReader.readMap` fills one). A key equal to an earlier one (`same`) keeps the
/// earlier key and its place; `replace` gives it the later value. The table starts at
/// `tableSizeFor(expected)` bins (at least 1); a put into a bin that already holds 8 keys resizes the table
/// while it has fewer than 64 bins (`treeifyBin`), and a put that makes the size exceed 3/4 of the bins
/// doubles them. `None` when a bin of a table of 64 bins or more would reach 9 keys: Java then turns it into
/// a tree, whose order is not modelled.
pub fn java_hash_order_presized<T>(
    items: Vec<(i32, T)>,
    expected: usize,
    same: impl Fn(&T, &T) -> bool,
    replace: impl Fn(&mut T, T),
) -> Option<Vec<T>> {
    use std::collections::HashMap;
    let spread = |h: i32| {
        let h = h as u32;
        (h ^ (h >> 16)) as usize
    };
    let mut capacity = expected.max(1).next_power_of_two();
    // The distinct keys in insertion order, each with its hash; their indices by hash; keys per bin.
    let mut kept: Vec<(i32, T)> = Vec::with_capacity(items.len());
    let mut by_hash: HashMap<i32, Vec<usize>> = HashMap::new();
    let mut bins: HashMap<usize, usize> = HashMap::new();
    let recount = |kept: &[(i32, T)], capacity: usize| {
        let mut bins: HashMap<usize, usize> = HashMap::new();
        for (h, _) in kept {
            *bins.entry(spread(*h) & (capacity - 1)).or_default() += 1;
        }
        bins
    };
    for (h, item) in items {
        let earlier = by_hash
            .get(&h)
            .and_then(|at| at.iter().copied().find(|i| same(&kept[*i].1, &item)));
        if let Some(at) = earlier {
            replace(&mut kept[at].1, item);
            continue;
        }
        let bin = spread(h) & (capacity - 1);
        let before = bins.get(&bin).copied().unwrap_or(0);
        by_hash.entry(h).or_default().push(kept.len());
        kept.push((h, item));
        *bins.entry(bin).or_default() += 1;
        if before >= 8 {
            if capacity >= 64 {
                return None;
            }
            capacity *= 2;
            bins = recount(&kept, capacity);
        }
        if kept.len() > capacity * 3 / 4 {
            capacity *= 2;
            bins = recount(&kept, capacity);
        }
    }
    let mut keyed: Vec<(usize, usize, T)> = kept
        .into_iter()
        .enumerate()
        .map(|(i, (h, t))| (spread(h) & (capacity - 1), i, t))
        .collect();
    keyed.sort_by_key(|(bin, order, _)| (*bin, *order));
    Some(keyed.into_iter().map(|(_, _, t)| t).collect())
}

#[cfg(test)]
mod tests {
    use super::{java_hash_order, java_hash_order_presized, JavaInsert};
    use crate::scan::binary_row_hash;

    /// Expected values printed by the released 1.0.0 jars: `BinaryRow.hashCode()` of a one-STRING row
    /// `("a")` and of one-INT rows, and the iteration order of `HashSet<Integer>`s.
    #[test]
    fn java_hashes_and_hash_order() {
        let a: Vec<u8> = [
            0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 97, 0, 0, 0, 0, 0, 0, -127i8,
        ]
        .iter()
        .map(|b| *b as u8)
        .collect();
        assert_eq!(binary_row_hash(&a), 943_281_246);
        let int_row = |k: i32| {
            let mut row = vec![0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
            row.extend_from_slice(&i64::from(k).to_le_bytes());
            row
        };
        let java = [
            1_465_514_398,
            1_340_390_384,
            -771_300_025,
            1_447_522_506,
            260_196_596,
        ];
        for (k, h) in (1..=5).zip(java) {
            assert_eq!(binary_row_hash(&int_row(k)), h, "key {k}");
        }
        let set = |keys: &[i32]| {
            java_hash_order(keys.iter().map(|k| (*k, *k)).collect(), JavaInsert::Put)
        };
        assert_eq!(set(&[20, 3, 16, 35, 4]), vec![16, 3, 35, 20, 4]);
        // 16 keys: the set has resized to 32 bins.
        let evens: Vec<i32> = (0..=30).rev().step_by(2).collect();
        assert_eq!(set(&evens), (0..=30).step_by(2).collect::<Vec<_>>());
        // `HashMap.computeIfAbsent` prepends within a bin and resizes before the insert that follows the
        // one exceeding the threshold: 13 keys stay in 16 bins, 14 keys end in 32.
        let map = |keys: &[i32]| {
            java_hash_order(
                keys.iter().map(|k| (*k, *k)).collect(),
                JavaInsert::ComputeIfAbsent,
            )
        };
        assert_eq!(map(&[20, 3, 16, 35, 4]), vec![16, 35, 3, 4, 20]);
        let fives = |n: i32| (0..n).map(|i| i * 5).collect::<Vec<_>>();
        assert_eq!(
            map(&fives(14)),
            vec![0, 65, 35, 5, 40, 10, 45, 15, 50, 20, 55, 25, 60, 30]
        );
        assert_eq!(
            map(&fives(13)),
            vec![0, 50, 35, 20, 5, 55, 40, 25, 10, 60, 45, 30, 15]
        );
    }

    /// `new HashMap<>(n)` then `put`: the table starts at the power of two above `n` and grows past 3/4, or
    /// when a ninth key enters one bin of a table of fewer than 64. The orders are what a JVM prints for
    /// `HashMap<Integer, Integer>.keySet()`.
    #[test]
    fn presized_maps_start_at_the_expected_size() {
        let order = |keys: &[i32]| {
            java_hash_order_presized(
                keys.iter().map(|k| (*k, *k)).collect(),
                keys.len(),
                |a, b| a == b,
                |a, b| *a = b,
            )
        };
        let presized = |keys: &[i32]| order(keys).unwrap();
        // 3 keys: 4 bins (3 is not above 3): 8 and 4 share bin 0, 5 is in bin 1.
        assert_eq!(presized(&[8, 5, 4]), vec![8, 4, 5]);
        // 2 keys: 2 bins, grown to 4 after the second (2 > 1): 6 in bin 2, 1 in bin 1.
        assert_eq!(presized(&[6, 1]), vec![1, 6]);
        assert_eq!(presized(&[20, 3, 16, 35, 4]), vec![16, 3, 35, 20, 4]);
        let sevens: Vec<i32> = (0..12).map(|i| i * 7).collect();
        assert_eq!(
            presized(&sevens),
            vec![0, 49, 35, 21, 70, 7, 56, 42, 28, 77, 14, 63]
        );
        // Nine keys in bin 0 of 16 bins: the ninth resizes the table to 32.
        let sixteens: Vec<i32> = (0..9).map(|i| i * 16).collect();
        assert_eq!(
            presized(&sixteens),
            vec![0, 32, 64, 96, 128, 16, 48, 80, 112]
        );
        // 20 keys in bin 0 even at 64 bins: Java makes a tree there (not modelled).
        let sixty_fours: Vec<i32> = (0..20).map(|i| i * 64).collect();
        assert!(order(&sixty_fours).is_none());
        // A repeated key keeps its place and the first key, and takes the last value.
        let order = java_hash_order_presized(
            vec![(1, ("k", 1)), (2, ("j", 2)), (1, ("k", 3))],
            3,
            |a, b| a.0 == b.0,
            |a, b| a.1 = b.1,
        )
        .unwrap();
        assert_eq!(order, vec![("k", 3), ("j", 2)]);
    }
}
