package org.paimonparity.flink;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The deterministic input of one producer: record {@code i} depends only on (seed, producer, i), so a
 * source restored from a checkpointed index replays exactly the records it replayed before.
 *
 * <p>Producer {@code p} of {@code n} owns the keys {@code k < keys} with {@code k % n == p}. Its first
 * {@code records} records pick one of its keys at random and either upsert it ({@code +I}) with a
 * random value or delete it ({@code -D}, one in eight). Then it writes one final record per key it
 * owns, in key order: {@code -D} for one in five, else {@code +I}. The final state of the table is
 * therefore the final records alone. The Rust side ({@code harness::flink::input}) computes the same
 * records from the same formula.
 *
 * <p>Columns: {@code k INT, producer INT, seq BIGINT, v BIGINT}; {@code seq} is {@code i}.
 */
public final class InputGenerator implements GeneratorFunction<Long, Row> {

    private static final long serialVersionUID = 1L;

    /** Source-reader starts per producer: the first start, then one per failover. */
    private static final Map<Integer, AtomicInteger> STARTS = new ConcurrentHashMap<>();

    private final long seed;
    private final int producer;
    private final int producers;
    private final int keys;
    private final long records;

    /** The input of producer {@code producer} of {@code producers}. */
    public InputGenerator(long seed, int producer, int producers, int keys, long records) {
        this.seed = seed;
        this.producer = producer;
        this.producers = producers;
        this.keys = keys;
        this.records = records;
    }

    /** The keys this producer owns. */
    public int ownKeys() {
        return (keys - producer + producers - 1) / producers;
    }

    /** How many records this producer emits: the random ones, then one final record per key. */
    public long total() {
        return records + ownKeys();
    }

    /** The row type of every producer. */
    public static TypeInformation<Row> rowType() {
        return Types.ROW_NAMED(
                new String[] {"k", "producer", "seq", "v"},
                Types.INT,
                Types.INT,
                Types.LONG,
                Types.LONG);
    }

    /** Failovers seen so far per producer: its source-reader starts less one. */
    public static Map<Integer, Integer> failovers() {
        Map<Integer, Integer> out = new java.util.TreeMap<>();
        STARTS.forEach((p, n) -> out.put(p, Math.max(0, n.get() - 1)));
        return out;
    }

    /** Failovers seen so far, all producers together. */
    public static int totalFailovers() {
        int sum = 0;
        for (int n : failovers().values()) {
            sum += n;
        }
        return sum;
    }

    @Override
    public void open(SourceReaderContext readerContext) {
        int starts = STARTS.computeIfAbsent(producer, p -> new AtomicInteger()).incrementAndGet();
        if (starts > 1) {
            FailureLog.event("source-restart", "producer " + producer + ", start " + starts);
        }
    }

    @Override
    public Row map(Long index) {
        long i = index;
        int own = ownKeys();
        int slot;
        boolean delete;
        if (i < records) {
            slot = (int) Long.remainderUnsigned(hash(seed, producer, i, 1), own);
            delete = Long.remainderUnsigned(hash(seed, producer, i, 2), 8) == 0;
        } else {
            slot = (int) (i - records);
            delete = Long.remainderUnsigned(hash(seed, producer, i, 2), 5) == 0;
        }
        if (i == total() - 1) {
            FailingFileIO.sourceEnded(producer);
        }
        int key = producer + producers * slot;
        long value = Long.remainderUnsigned(hash(seed, producer, i, 3), 1_000_000L);
        return Row.ofKind(delete ? RowKind.DELETE : RowKind.INSERT, key, producer, i, value);
    }

    /** SplitMix64's finalizer. */
    static long mix(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The hash of record {@code i} of {@code producer} for one purpose ({@code salt}). */
    static long hash(long seed, int producer, long i, long salt) {
        long h = mix(seed);
        h = mix(h ^ producer);
        h = mix(h ^ i);
        return mix(h ^ salt);
    }
}
