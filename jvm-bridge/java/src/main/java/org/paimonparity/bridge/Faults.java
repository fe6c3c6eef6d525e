package org.paimonparity.bridge;

import org.apache.paimon.fs.Path;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Fault switches of the corpus writer, per table (so that scenarios written at the same time in one
 * JVM never trip each other's faults). Each fault is armed once and fires once, at an exact point
 * of the released commit protocol:
 *
 * <ul>
 *   <li>{@link #MANIFEST_READ_AFTER_SNAPSHOT}: the first read of a file under the table's {@code
 *       manifest/} after the next {@code snapshot/snapshot-N} rename fails ({@link FaultyFileIO}).
 *       In a commit that produces APPEND then COMPACT, that is the COMPACT's conflict-check read:
 *       the APPEND snapshot is durable, the COMPACT snapshot is never written.
 *   <li>{@link #CALLBACK_AFTER_APPEND}: the commit callback ({@link FailAfterAppendCallback})
 *       throws after the table's next APPEND snapshot is written.
 * </ul>
 */
public final class Faults {

    /** Name of the manifest-read fault. */
    public static final String MANIFEST_READ_AFTER_SNAPSHOT = "manifest-read-after-snapshot";

    /** Name of the commit-callback fault. */
    public static final String CALLBACK_AFTER_APPEND = "callback-after-append";

    /** Marker in the message of every injected exception. */
    public static final String INJECTED = "paimon-parity injected fault";

    /** Per table (see {@link #key}): the switches. */
    private static final Map<String, Switches> TABLES = new ConcurrentHashMap<>();

    private Faults() {}

    /** The switches of one table. */
    static final class Switches {
        final AtomicBoolean manifestArmed = new AtomicBoolean();
        final AtomicBoolean manifestFire = new AtomicBoolean();
        final AtomicBoolean callbackArmed = new AtomicBoolean();
    }

    /** A table directory as a key: its path without scheme and trailing slash. */
    static String key(Path tableDir) {
        String p = tableDir.toUri().getPath();
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    /** The switches of the table at {@code tableDir}, or null when no fault was ever armed there. */
    static Switches of(Path tableDir) {
        return tableDir == null ? null : TABLES.get(key(tableDir));
    }

    /** Arms one fault by name for the table at {@code tableDir}. */
    public static void arm(String fault, String tableDir) {
        Switches s = TABLES.computeIfAbsent(key(new Path(tableDir)), k -> new Switches());
        switch (fault) {
            case MANIFEST_READ_AFTER_SNAPSHOT:
                s.manifestFire.set(false);
                s.manifestArmed.set(true);
                break;
            case CALLBACK_AFTER_APPEND:
                s.callbackArmed.set(true);
                break;
            default:
                throw new IllegalArgumentException(
                        "unknown fault '"
                                + fault
                                + "'; known: "
                                + MANIFEST_READ_AFTER_SNAPSHOT
                                + ", "
                                + CALLBACK_AFTER_APPEND);
        }
    }

    /**
     * Disarms every fault of the table at {@code tableDir} and returns the names of those that were
     * still armed (did not fire), comma-separated; empty when every armed fault fired.
     */
    public static String disarmAll(String tableDir) {
        Switches s = TABLES.remove(key(new Path(tableDir)));
        List<String> pending = new ArrayList<>();
        if (s != null) {
            if (s.manifestArmed.getAndSet(false) | s.manifestFire.getAndSet(false)) {
                pending.add(MANIFEST_READ_AFTER_SNAPSHOT);
            }
            if (s.callbackArmed.getAndSet(false)) {
                pending.add(CALLBACK_AFTER_APPEND);
            }
        }
        return String.join(",", pending);
    }

    /** Called by the commit callback of the table at {@code tableDir} after every snapshot. */
    static void afterSnapshot(String tableDir, String commitKind, long snapshotId) {
        Switches s = tableDir == null ? null : of(new Path(tableDir));
        if (s != null
                && "APPEND".equals(commitKind)
                && s.callbackArmed.compareAndSet(true, false)) {
            throw new IllegalStateException(
                    INJECTED + ": commit callback after APPEND snapshot " + snapshotId);
        }
    }
}
