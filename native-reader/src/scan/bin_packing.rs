//! `org.apache.paimon.utils.BinPacking`.

/// `BinPacking.packForOrdered`: items in order; a new bin starts when adding the next item would exceed
/// `target` and the current bin is not empty.
pub(crate) fn pack_for_ordered<T>(
    items: Vec<T>,
    weight: impl Fn(&T) -> i64,
    target: i64,
) -> Vec<Vec<T>> {
    let mut packed = Vec::new();
    let mut bin = Vec::new();
    let mut bin_weight: i64 = 0;
    for item in items {
        let w = weight(&item);
        if bin_weight.saturating_add(w) > target && !bin.is_empty() {
            packed.push(std::mem::take(&mut bin));
            bin_weight = 0;
        }
        bin_weight = bin_weight.saturating_add(w);
        bin.push(item);
    }
    if !bin.is_empty() {
        packed.push(bin);
    }
    packed
}
