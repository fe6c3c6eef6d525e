package org.paimonparity.bridge;

import org.apache.paimon.fs.Path;
import org.apache.paimon.utils.JsonSerdeUtil;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The crash-point sweep's side of {@link FaultyFileIO}: per table, a window in which every primitive
 * file operation on a path under the table is numbered from 1 (on every thread, the manifest-read
 * pool included) and recorded, and at most one fault fires at operation {@code at}:
 *
 * <ul>
 *   <li>{@code crash}: operation {@code at} and every later operation of the same {@code FileIO}
 *       instance (the writer and committer that made it) throw, and its open output streams fail
 *       without closing: the process is gone;
 *   <li>{@code fail}: operation {@code at} throws once before it takes effect;
 *   <li>{@code fail-after}: operation {@code at} takes effect, then throws once;
 *   <li>{@code none}: nothing fires (the counting run).
 * </ul>
 *
 * <p>An operation is one call of {@code newInputStream}, {@code newOutputStream}, {@code
 * getFileStatus}, {@code listStatus}, {@code exists}, {@code delete}, {@code mkdirs}, {@code
 * rename}, or the {@code close} of an output stream; calls made inside another of these (
 * {@code LocalFileIO.newOutputStream}'s own {@code exists} and {@code mkdirs}) are not counted.
 * The logic of the sweep lives in Rust ({@code harness/src/sweep}).
 */
public final class CrashPoints {

    /** Fault modes. */
    static final String NONE = "none";

    static final String CRASH = "crash";
    static final String FAIL = "fail";
    static final String FAIL_AFTER = "fail-after";

    private static final Map<String, Window> WINDOWS = new ConcurrentHashMap<>();

    private CrashPoints() {}

    /** One table's window. */
    static final class Window {
        final String root;
        final String mode;
        final int at;
        final List<Map<String, Object>> ops = new ArrayList<>();
        int firedAt;
        String firedOp;

        Window(String root, String mode, int at) {
            this.root = root;
            this.mode = mode;
            this.at = at;
        }

        /** Records an operation; returns its index (from 1). */
        synchronized int record(String op, Path path) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("op", op);
            o.put("path", relative(path));
            o.put("thread", Thread.currentThread().getName());
            ops.add(o);
            return ops.size();
        }

        /** Whether the fault fires before operation {@code n} takes effect. */
        synchronized boolean before(int n, String op) {
            boolean fire = (CRASH.equals(mode) || FAIL.equals(mode)) && n == at;
            if (fire) {
                firedAt = n;
                firedOp = op;
            }
            return fire;
        }

        /** Whether the fault fires after operation {@code n} took effect. */
        synchronized boolean after(int n, String op) {
            boolean fire = FAIL_AFTER.equals(mode) && n == at;
            if (fire) {
                firedAt = n;
                firedOp = op;
            }
            return fire;
        }

        String relative(Path path) {
            String p = path.toUri().getPath();
            return p.startsWith(root) ? p.substring(root.length()) : p;
        }
    }

    /** The open window of the table {@code path} lies under, or null. */
    static Window of(Path path) {
        if (WINDOWS.isEmpty() || path == null) {
            return null;
        }
        String p = path.toUri().getPath();
        for (Window w : WINDOWS.values()) {
            if (p.startsWith(w.root)) {
                return w;
            }
        }
        return null;
    }

    /**
     * Opens the window of the table at {@code tableDir}: operations are counted from 1 from now on,
     * and a fault of {@code mode} ({@code none}, {@code crash}, {@code fail}, {@code fail-after})
     * fires at operation {@code at}.
     */
    public static void open(String tableDir, String mode, int at) {
        if (!NONE.equals(mode) && !CRASH.equals(mode) && !FAIL.equals(mode)
                && !FAIL_AFTER.equals(mode)) {
            throw new IllegalArgumentException(
                    "unknown fault mode '" + mode + "'; known: none, crash, fail, fail-after");
        }
        String key = Faults.key(new Path(tableDir));
        WINDOWS.put(key, new Window(key + "/", mode, at));
    }

    /**
     * Closes the window of the table at {@code tableDir} and returns it as JSON: {@code
     * {"ops":[{"op":"rename","path":"snapshot/snapshot-3","thread":".."}, ..],"fired_at":n,
     * "fired_op":".."}} ({@code fired_at} 0 when no fault fired). Paths are relative to the
     * table; a rename records its target.
     */
    public static String close(String tableDir) {
        Window w = WINDOWS.remove(Faults.key(new Path(tableDir)));
        Map<String, Object> out = new LinkedHashMap<>();
        if (w == null) {
            out.put("ops", new ArrayList<>());
            out.put("fired_at", 0);
            return JsonSerdeUtil.toJson(out);
        }
        synchronized (w) {
            out.put("ops", new ArrayList<>(w.ops));
            out.put("fired_at", w.firedAt);
            out.put("fired_op", w.firedOp);
        }
        return JsonSerdeUtil.toJson(out);
    }

    /** The exception of an injected fault. */
    static IOException injected(String mode, int n, String op, Path path) {
        return new IOException(
                Faults.INJECTED + ": " + mode + " at operation " + n + " (" + op + " " + path + ")");
    }
}
