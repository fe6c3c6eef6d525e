// Writes unions.txt: sketch images and their unions as the released Paimon 1.0.0 computes them
// (org.apache.paimon.utils.ThetaSketch.union, org.apache.paimon.utils.HllSketchUtil.union, DataSketches
// Java 4.2.0 shaded in paimon-bundle). One line per case: `<theta|hll> <name> <acc hex> <input hex> <union hex>`.
//
//   scripts/build-java
//   java -cp 'jvm-bridge/java/target/paimon-1.0.0/lib/*' native-reader/tests/sketches/GenerateUnions.java \
//       > native-reader/tests/sketches/unions.txt
import org.apache.paimon.shade.org.apache.datasketches.hll.HllSketch;
import org.apache.paimon.shade.org.apache.datasketches.hll.TgtHllType;
import org.apache.paimon.shade.org.apache.datasketches.theta.UpdateSketch;
import org.apache.paimon.utils.HllSketchUtil;
import org.apache.paimon.utils.ThetaSketch;

import java.util.Random;

public class GenerateUnions {
    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x));
        return s.toString();
    }

    static int[] range(int from, int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) r[i] = from + i;
        return r;
    }

    static byte[] hll(int lgK, TgtHllType t, int[] v, boolean compact) {
        HllSketch s = new HllSketch(lgK, t);
        for (int x : v) s.update(x);
        return compact ? s.toCompactByteArray() : s.toUpdatableByteArray();
    }

    static byte[] theta(int lgK, int[] v) {
        UpdateSketch s = UpdateSketch.builder().setNominalEntries(1 << lgK).build();
        for (int x : v) s.update(x);
        return s.compact().toByteArray();
    }

    static void t(String name, byte[] a, byte[] b) {
        System.out.println("theta " + name + " " + hex(a) + " " + hex(b) + " " + hex(ThetaSketch.union(a, b)));
    }

    static void h(String name, byte[] a, byte[] b) {
        System.out.println("hll " + name + " " + hex(a) + " " + hex(b) + " " + hex(HllSketchUtil.union(a, b)));
    }

    public static void main(String[] args) {
        t("exact", ThetaSketch.sketchOf(1, 2, 3), ThetaSketch.sketchOf(3, 4));
        t("empty-single", ThetaSketch.sketchOf(), ThetaSketch.sketchOf(5));
        t("single-single", ThetaSketch.sketchOf(5), ThetaSketch.sketchOf(5));
        t("empty-empty", ThetaSketch.sketchOf(), ThetaSketch.sketchOf());
        t("single-other", ThetaSketch.sketchOf(5), ThetaSketch.sketchOf(6));
        t("exact-to-estimation", ThetaSketch.sketchOf(range(0, 3000)), ThetaSketch.sketchOf(range(2000, 3000)));
        t("small-k-estimation", theta(5, range(0, 100)), ThetaSketch.sketchOf(range(50, 80)));
        t("small-k-both", theta(5, range(0, 100)), theta(6, range(1000, 200)));
        t("estimation-empty", theta(4, range(0, 100)), ThetaSketch.sketchOf());
        h("list-list", HllSketchUtil.sketchOf(1, 2, 3), HllSketchUtil.sketchOf(3, 4));
        h("empty-list", HllSketchUtil.sketchOf(), HllSketchUtil.sketchOf(3, 4));
        h("list-empty", HllSketchUtil.sketchOf(3, 4), HllSketchUtil.sketchOf());
        h("set-list", HllSketchUtil.sketchOf(range(0, 20)), HllSketchUtil.sketchOf(1, 2, 3));
        h("hll-list", HllSketchUtil.sketchOf(range(0, 1000)), HllSketchUtil.sketchOf(1, 2, 3));
        h("list-hll", HllSketchUtil.sketchOf(1, 2, 3), HllSketchUtil.sketchOf(range(0, 1000)));
        h("hll-hll", HllSketchUtil.sketchOf(range(0, 1000)), HllSketchUtil.sketchOf(range(500, 5000)));
        h("hll-hll-exceptions", HllSketchUtil.sketchOf(range(0, 100000)), HllSketchUtil.sketchOf(range(50000, 300000)));
        h("lgk-differ", hll(10, TgtHllType.HLL_8, range(0, 3000), true), hll(12, TgtHllType.HLL_6, range(100, 900), true));
        h("lgk-differ2", hll(12, TgtHllType.HLL_4, range(0, 3000), true), hll(8, TgtHllType.HLL_8, range(100, 900), true));
        h("updatable", hll(11, TgtHllType.HLL_4, range(0, 2000), false), hll(11, TgtHllType.HLL_4, range(1000, 2500), true));
        h("set-set", HllSketchUtil.sketchOf(range(0, 100)), HllSketchUtil.sketchOf(range(50, 200)));
        // Seeded random cases over lgConfigK, target types, sizes (LIST, SET and HLL modes) and image kinds.
        Random random = new Random(20261129L);
        TgtHllType[] types = TgtHllType.values();
        int[] sizes = {0, 1, 5, 7, 8, 9, 20, 23, 24, 25, 47, 48, 49, 96, 97, 100, 200, 383, 384, 385, 600, 3000, 40000};
        for (int i = 0; i < 60; i++) {
            int lgK = 8 + random.nextInt(7);
            int lgK2 = random.nextInt(4) == 0 ? 8 + random.nextInt(7) : lgK;
            int n1 = sizes[random.nextInt(sizes.length)];
            int n2 = sizes[random.nextInt(sizes.length)];
            int from2 = random.nextInt(Math.max(1, n1 + 1));
            byte[] a = hll(lgK, types[random.nextInt(3)], range(0, n1), random.nextInt(4) != 0);
            byte[] b = hll(lgK2, types[random.nextInt(3)], range(from2, n2), random.nextInt(4) != 0);
            h("random-" + i + "-lgk" + lgK + "-" + lgK2 + "-n" + n1 + "-" + n2, a, b);
        }
    }
}
