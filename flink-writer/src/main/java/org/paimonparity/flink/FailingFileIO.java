package org.paimonparity.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The released {@code LocalFileIO} under a scheme of its own ({@value #SCHEME}), with four kinds of
 * injected failures, all configured once per process by {@link #configure}:
 *
 * <ul>
 *   <li><b>Random</b>: opening a file for reading or writing, and a rename, fail with a given
 *       probability, at most a given number of times, on a job's task threads only (never on the
 *       main thread, which creates the catalog and the table).
 *   <li><b>Targeted</b>: when the snapshot a rename publishes is the APPEND snapshot of a chosen
 *       commit (its commit user starts with a given prefix and its identifier is the chosen one),
 *       the next manifest read of the same thread fails, once: that is the COMPACT half's
 *       conflict check of the same commit, so its APPEND is durable and its COMPACT is lost.
 *   <li><b>At end of input</b> ({@link EndOfInput}): once a producer's source has emitted its last
 *       record, the first commit after that fails: on the first manifest file it writes ({@code
 *       "commit"}: the commit fails before any snapshot), on its snapshot rename ({@code
 *       "snapshot-rename"}), or on the manifest read right after its APPEND snapshot ({@code
 *       "compact"}, so that commit loses its COMPACT half). The restarted job must finish the tail.
 *   <li><b>While writing</b> ({@link WhileWriting}): once a snapshot of a producer's job with a
 *       chosen identifier or above is published, the n-th data (or changelog) file created after it
 *       fails on its creation ({@code "create"}) or its first write ({@code "write"}): the attempt
 *       aborts before its next checkpoint, and the restarted job re-processes the input since the
 *       last one. The data and changelog files the failing attempt created after the arming are
 *       logged (its task threads carry the attempt in their names): they belong to checkpoints that
 *       never completed, so those its writers did not delete stay in the table, uncommitted.
 * </ul>
 *
 * <p>Every failure fired goes to the {@link FailureLog}. Without configuration it behaves exactly
 * like {@code LocalFileIO}.
 */
public class FailingFileIO extends LocalFileIO {

    private static final long serialVersionUID = 1L;

    /** The scheme of warehouses written through this file IO. */
    public static final String SCHEME = "ppfail";

    /** Marker in the message of every injected exception. */
    public static final String INJECTED = "paimon-parity injected failure";

    private static volatile double probability;
    private static volatile int maxRandom;
    private static int randomFired;
    private static SplittableRandom random = new SplittableRandom(0);

    private static volatile String targetUser;
    private static volatile long targetIdentifier = Long.MIN_VALUE;
    /** The thread that published the chosen APPEND snapshot and has not read a manifest since. */
    private static volatile long pendingThread = -1;
    /** Whether {@link #pendingThread} was armed by the failure at end of input. */
    private static boolean pendingEndOfInput;

    private static final Map<String, Object> TARGETED = new LinkedHashMap<>();

    private static EndOfInput endOfInput;
    private static WhileWriting whileWriting;

    /**
     * The failure at end of input: the first commit after producer {@code producer}'s source emitted
     * its last record fails, at {@code at}: {@code "commit"} (the first manifest file written after
     * that point, by any job of the process: the commit fails while preparing its snapshot), {@code
     * "snapshot-rename"} (the rename that publishes the next snapshot of the producer's job) or {@code
     * "compact"} (the manifest read right after its next APPEND snapshot).
     */
    public static final class EndOfInput {
        final int producer;
        final String userPrefix;
        final String at;
        boolean armed;
        boolean fired;
        final Map<String, Object> log = new LinkedHashMap<>();

        /** The failure of producer {@code producer} (commit user prefix {@code userPrefix}). */
        public EndOfInput(int producer, String userPrefix, String at) {
            if (!"commit".equals(at) && !"snapshot-rename".equals(at) && !"compact".equals(at)) {
                throw new IllegalArgumentException(
                        "end_of_input.at is \"commit\", \"snapshot-rename\" or \"compact\", not "
                                + at);
            }
            this.producer = producer;
            this.userPrefix = userPrefix;
            this.at = at;
            log.put("producer", producer);
            log.put("at", at);
            log.put("armed", false);
            log.put("fired", false);
        }
    }

    /**
     * The failure while writing: after a snapshot of user prefix {@code userPrefix} with identifier
     * {@code afterIdentifier} or above is published, the {@code nth} file created whose name starts
     * with {@code data-} ({@code file} "data") or {@code changelog-} ("changelog") fails on its
     * creation ({@code operation} "create") or on its first write ("write").
     */
    public static final class WhileWriting {
        final String userPrefix;
        final long afterIdentifier;
        final String prefix;
        final int nth;
        final boolean onWrite;
        boolean armed;
        boolean fired;
        int seen;
        /** Data and changelog files created after the arming, per task attempt. */
        final Map<String, List<String>> created = new LinkedHashMap<>();
        /** Identifiers of snapshots published after the arming (other than the arming one's), per attempt. */
        final Map<String, List<Long>> commits = new LinkedHashMap<>();
        long armingIdentifier;
        String failingAttempt;
        final Map<String, Object> log = new LinkedHashMap<>();

        /** The failure after producer {@code producer}'s commit {@code afterIdentifier}. */
        public WhileWriting(
                int producer,
                String userPrefix,
                long afterIdentifier,
                String file,
                int nth,
                String operation) {
            if (!"data".equals(file) && !"changelog".equals(file)) {
                throw new IllegalArgumentException(
                        "while_writing.file is \"data\" or \"changelog\", not " + file);
            }
            if (!"create".equals(operation) && !"write".equals(operation)) {
                throw new IllegalArgumentException(
                        "while_writing.operation is \"create\" or \"write\", not " + operation);
            }
            if (nth < 1) {
                throw new IllegalArgumentException("while_writing.nth is 1 or more, not " + nth);
            }
            this.userPrefix = userPrefix;
            this.afterIdentifier = afterIdentifier;
            this.prefix = file + "-";
            this.nth = nth;
            this.onWrite = "write".equals(operation);
            log.put("producer", producer);
            log.put("after_identifier", afterIdentifier);
            log.put("file", file);
            log.put("nth", nth);
            log.put("operation", operation);
            log.put("armed_by_snapshot", null);
            log.put("fired", false);
        }

        /** The log, with the files and later commits of the attempt the failure aborted. */
        Map<String, Object> summary() {
            Map<String, Object> out = new LinkedHashMap<>(log);
            out.put("aborted_attempt", failingAttempt);
            List<String> files = created.get(failingAttempt);
            out.put("files_of_aborted_attempt", files == null ? new ArrayList<>() : files);
            List<Long> later = new ArrayList<>();
            for (long id : commits.getOrDefault(failingAttempt, new ArrayList<>())) {
                if (id > armingIdentifier) {
                    later.add(id);
                }
            }
            out.put("later_commits_of_aborted_attempt", later);
            return out;
        }
    }

    /**
     * The task attempt of the calling thread: its name up to the attempt number after {@code )#} (a
     * Flink task thread, or a thread it started, such as a writer's compaction thread), else the whole
     * name.
     */
    static String attemptOf(String thread) {
        int hash = thread.lastIndexOf(")#");
        if (hash < 0) {
            return thread;
        }
        int end = hash + 2;
        while (end < thread.length() && Character.isDigit(thread.charAt(end))) {
            end++;
        }
        return thread.substring(0, end);
    }

    /**
     * Sets the failures of this process: random ones ({@code probability} per operation, at most
     * {@code maxFails}; 0 for none) drawn from {@code seed}, and the targeted one (the commit of user
     * prefix {@code user} with identifier {@code identifier}; {@code user} null for none).
     */
    public static synchronized void configure(
            double probability, int maxFails, long seed, String user, long identifier) {
        FailingFileIO.probability = probability;
        FailingFileIO.maxRandom = maxFails;
        FailingFileIO.random = new SplittableRandom(seed);
        FailingFileIO.targetUser = user;
        FailingFileIO.targetIdentifier = identifier;
        if (user != null) {
            TARGETED.put("commit_user_prefix", user);
            TARGETED.put("identifier", identifier);
            TARGETED.put("fired", false);
        }
    }

    /** Sets the failure at end of input ({@code null}: none). */
    public static synchronized void configureEndOfInput(EndOfInput e) {
        endOfInput = e;
    }

    /** Sets the failure while writing ({@code null}: none). */
    public static synchronized void configureWhileWriting(WhileWriting w) {
        whileWriting = w;
    }

    /** What became of the failure at end of input (empty when none was configured). */
    public static synchronized Map<String, Object> endOfInput() {
        return endOfInput == null ? new LinkedHashMap<>() : new LinkedHashMap<>(endOfInput.log);
    }

    /** What became of the failure while writing (empty when none was configured). */
    public static synchronized Map<String, Object> whileWriting() {
        return whileWriting == null ? new LinkedHashMap<>() : whileWriting.summary();
    }

    /**
     * Producer {@code producer}'s source has emitted its last record ({@link InputGenerator}): arms
     * the failure at end of input of that producer, once.
     */
    public static synchronized void sourceEnded(int producer) {
        EndOfInput e = endOfInput;
        if (e != null && e.producer == producer && !e.armed) {
            e.armed = true;
            e.log.put("armed", true);
            FailureLog.event("end-of-input", "producer " + producer + " emitted its last record");
        }
    }

    /** What became of the targeted failure (empty when none was configured). */
    public static synchronized Map<String, Object> targeted() {
        return new LinkedHashMap<>(TARGETED);
    }

    /** How many random failures fired. */
    public static synchronized int randomFired() {
        return randomFired;
    }

    private static void maybeFail(String operation, Path path) throws IOException {
        FailureLog.noteThread();
        if (probability <= 0 || "main".equals(Thread.currentThread().getName())) {
            return;
        }
        synchronized (FailingFileIO.class) {
            if (randomFired >= maxRandom || random.nextDouble() >= probability) {
                return;
            }
            randomFired++;
        }
        FailureLog.failure("random", operation, path.toString(), null);
        throw new IOException(INJECTED + ": random " + operation + " " + path);
    }

    @Override
    public SeekableInputStream newInputStream(Path path) throws IOException {
        Path dir = path.getParent();
        if (dir != null
                && "manifest".equals(dir.getName())
                && pendingThread == Thread.currentThread().getId()) {
            String kind;
            synchronized (FailingFileIO.class) {
                pendingThread = -1;
                if (pendingEndOfInput) {
                    pendingEndOfInput = false;
                    endOfInput.fired = true;
                    endOfInput.log.put("fired", true);
                    kind = "end-of-input";
                } else {
                    TARGETED.put("fired", true);
                    kind = "targeted";
                }
            }
            FailureLog.failure(kind, "newInputStream", path.toString(), "manifest read after APPEND");
            throw new IOException(INJECTED + ": manifest read after the chosen APPEND " + path);
        }
        maybeFail("newInputStream", path);
        return super.newInputStream(path);
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        boolean failWrite = false;
        WhileWriting w = whileWriting;
        String name = path.getName();
        if (w != null && (name.startsWith("data-") || name.startsWith("changelog-"))) {
            synchronized (FailingFileIO.class) {
                String attempt = attemptOf(Thread.currentThread().getName());
                if (w != null && w.armed) {
                    w.created.computeIfAbsent(attempt, a -> new ArrayList<>()).add(path.toString());
                }
                if (w != null && w.armed && !w.fired) {
                    if (name.startsWith(w.prefix) && ++w.seen == w.nth) {
                        w.fired = true;
                        w.failingAttempt = attempt;
                        w.log.put("fired", true);
                        w.log.put("path", path.toString());
                        failWrite = w.onWrite;
                        if (!failWrite) {
                            FailureLog.failure(
                                    "while-writing", "newOutputStream", path.toString(), null);
                            throw new IOException(INJECTED + ": while writing, creating " + path);
                        }
                    }
                }
            }
        }
        Path dir = path.getParent();
        if (endOfInput != null
                && "commit".equals(endOfInput.at)
                && dir != null
                && "manifest".equals(dir.getName())) {
            boolean fire;
            synchronized (FailingFileIO.class) {
                fire = endOfInput.armed && !endOfInput.fired;
                if (fire) {
                    endOfInput.fired = true;
                    endOfInput.log.put("fired", true);
                    endOfInput.log.put("path", path.toString());
                }
            }
            if (fire) {
                FailureLog.failure(
                        "end-of-input",
                        "newOutputStream",
                        path.toString(),
                        "first manifest file after end of input");
                throw new IOException(INJECTED + ": the first commit after end of input, " + path);
            }
        }
        maybeFail("newOutputStream", path);
        PositionOutputStream out = super.newOutputStream(path, overwrite);
        return failWrite ? new FailingOnWrite(out, path) : out;
    }

    /** A stream whose first write fails (the failure while writing, on {@code "write"}). */
    private static final class FailingOnWrite extends PositionOutputStream {
        private final PositionOutputStream out;
        private final Path path;
        private boolean failed;

        FailingOnWrite(PositionOutputStream out, Path path) {
            this.out = out;
            this.path = path;
        }

        private void fail() throws IOException {
            if (!failed) {
                failed = true;
                FailureLog.failure("while-writing", "write", path.toString(), null);
                throw new IOException(INJECTED + ": while writing into " + path);
            }
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos();
        }

        @Override
        public void write(int b) throws IOException {
            fail();
            out.write(b);
        }

        @Override
        public void write(byte[] b) throws IOException {
            fail();
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            fail();
            out.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        Path dstDir = dst.getParent();
        if (endOfInput != null
                && "snapshot-rename".equals(endOfInput.at)
                && dst.getName().startsWith("snapshot-")
                && dstDir != null
                && "snapshot".equals(dstDir.getName())) {
            failEndOfInputCommit(src, dst);
        }
        maybeFail("rename", dst);
        boolean ok = super.rename(src, dst);
        Path dir = dst.getParent();
        if (ok
                && dst.getName().startsWith("snapshot-")
                && dir != null
                && "snapshot".equals(dir.getName())) {
            published(dst);
        }
        return ok;
    }

    private static JsonNode readSnapshot(Path file) throws IOException {
        return new ObjectMapper().readTree(Files.readAllBytes(Paths.get(file.toUri().getPath())));
    }

    /** The failure at end of input on {@code "snapshot-rename"}: the producer's next snapshot. */
    private static void failEndOfInputCommit(Path src, Path dst) throws IOException {
        synchronized (FailingFileIO.class) {
            EndOfInput e = endOfInput;
            if (!e.armed || e.fired) {
                return;
            }
            JsonNode s = readSnapshot(src);
            if (!s.path("commitUser").asText().startsWith(e.userPrefix)) {
                return;
            }
            e.fired = true;
            e.log.put("fired", true);
            e.log.put("snapshot", s.path("id").asLong());
            e.log.put("commit_kind", s.path("commitKind").asText());
            e.log.put("identifier", s.path("commitIdentifier").asLong());
        }
        FailureLog.failure(
                "end-of-input", "rename", dst.toString(), "first snapshot after end of input");
        throw new IOException(INJECTED + ": the first commit after end of input, " + dst);
    }

    /** A snapshot was published by this thread: arm the targeted failures it is the point of. */
    private static void published(Path snapshot) throws IOException {
        long self = Thread.currentThread().getId();
        if (pendingThread == self) {
            pendingThread = -1; // the chosen commit had no manifest read after its APPEND
            pendingEndOfInput = false;
        }
        String user = targetUser;
        EndOfInput e = endOfInput;
        WhileWriting w = whileWriting;
        if (user == null && e == null && w == null) {
            return;
        }
        JsonNode s = readSnapshot(snapshot);
        String committer = s.path("commitUser").asText();
        synchronized (FailingFileIO.class) {
            if (w != null
                    && !w.armed
                    && committer.startsWith(w.userPrefix)
                    && s.path("commitIdentifier").asLong() >= w.afterIdentifier) {
                w.armed = true;
                w.armingIdentifier = s.path("commitIdentifier").asLong();
                w.log.put("armed_by_snapshot", s.path("id").asLong());
            } else if (w != null && w.armed) {
                w.commits
                        .computeIfAbsent(
                                attemptOf(Thread.currentThread().getName()),
                                a -> new ArrayList<>())
                        .add(s.path("commitIdentifier").asLong());
            }
            if (e != null
                    && "compact".equals(e.at)
                    && e.armed
                    && !e.fired
                    && !e.log.containsKey("append")
                    && "APPEND".equals(s.path("commitKind").asText())
                    && committer.startsWith(e.userPrefix)) {
                e.log.put("append", s.path("id").asLong());
                e.log.put("identifier", s.path("commitIdentifier").asLong());
                pendingThread = self;
                pendingEndOfInput = true;
            }
            if (user == null) {
                return;
            }
            if (Boolean.TRUE.equals(TARGETED.get("fired")) || TARGETED.containsKey("append")) {
                return;
            }
            if ("APPEND".equals(s.path("commitKind").asText())
                    && s.path("commitUser").asText().startsWith(user)
                    && s.path("commitIdentifier").asLong() == targetIdentifier) {
                TARGETED.put("append", s.path("id").asLong());
                TARGETED.put("commit_user", s.path("commitUser").asText());
                pendingThread = self;
                pendingEndOfInput = false;
            }
        }
    }
}
