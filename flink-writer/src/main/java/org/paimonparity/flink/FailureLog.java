package org.paimonparity.flink;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the job went through: every failure the failing file IO fired (operation, path, thread, the
 * Paimon frame that called it, the failovers so far) and every source restart, in order. Written as
 * JSON beside the table when the job ends ({@link #write}).
 */
public final class FailureLog {

    private static final List<Map<String, Object>> ENTRIES = new ArrayList<>();
    /** The newest attempt seen per task (a task thread's name without its {@code #attempt}). */
    private static final Map<String, Integer> ATTEMPTS = new java.util.TreeMap<>();
    private static final long START = System.nanoTime();

    private FailureLog() {}

    /** Records an injected failure. */
    public static void failure(String kind, String operation, String path, String detail) {
        Map<String, Object> e = base("failure");
        e.put("kind", kind);
        e.put("operation", operation);
        e.put("path", path);
        e.put("caller", paimonCaller());
        if (detail != null) {
            e.put("detail", detail);
        }
        add(e);
    }

    /** Records something else the job did (a source restart). */
    public static void event(String event, String detail) {
        Map<String, Object> e = base(event);
        e.put("detail", detail);
        add(e);
    }

    /**
     * Notes the calling thread: a Flink task thread's name ends with {@code #<attempt>}, so a task seen
     * with a newer attempt was restarted (a failover, also when no source restarted: after the end of
     * input, the restored sources are finished). Logs a {@code task-attempt} event the first time each
     * attempt after the first is seen.
     */
    public static void noteThread() {
        String name = Thread.currentThread().getName();
        int hash = name.lastIndexOf(")#");
        if (hash < 0) {
            return;
        }
        int attempt;
        try {
            attempt = Integer.parseInt(name.substring(hash + 2));
        } catch (NumberFormatException e) {
            return;
        }
        String task = name.substring(0, hash + 1);
        synchronized (FailureLog.class) {
            Integer seen = ATTEMPTS.get(task);
            if (seen != null && seen >= attempt) {
                return;
            }
            ATTEMPTS.put(task, attempt);
        }
        if (attempt > 0) {
            event("task-attempt", task + " attempt " + attempt);
        }
    }

    /** The newest attempt seen per task (0: never restarted). */
    public static synchronized Map<String, Integer> attempts() {
        return new java.util.TreeMap<>(ATTEMPTS);
    }

    /** The entries so far. */
    public static synchronized List<Map<String, Object>> entries() {
        return new ArrayList<>(ENTRIES);
    }

    /** Writes the log with a summary ({@code extra}) to {@code file}. */
    public static void write(File file, Map<String, Object> extra) throws IOException {
        Map<String, Object> out = new LinkedHashMap<>(extra);
        out.put("failovers", InputGenerator.failovers());
        out.put("task_attempts", attempts());
        out.put("entries", entries());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file, out);
    }

    private static Map<String, Object> base(String event) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("event", event);
        e.put("ms", (System.nanoTime() - START) / 1_000_000L);
        e.put("thread", Thread.currentThread().getName());
        e.put("failovers_so_far", InputGenerator.totalFailovers());
        return e;
    }

    private static synchronized void add(Map<String, Object> e) {
        ENTRIES.add(e);
    }

    /** The first frame of Paimon's own code outside its file systems: who asked for the operation. */
    private static String paimonCaller() {
        for (StackTraceElement f : new Throwable().getStackTrace()) {
            String c = f.getClassName();
            if (c.startsWith("org.apache.paimon.") && !c.startsWith("org.apache.paimon.fs.")) {
                return c + "." + f.getMethodName() + ":" + f.getLineNumber();
            }
        }
        return null;
    }
}
