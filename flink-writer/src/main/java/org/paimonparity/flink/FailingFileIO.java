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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The released {@code LocalFileIO} under a scheme of its own ({@value #SCHEME}), with two kinds of
 * injected failures, both configured once per process by {@link #configure}:
 *
 * <ul>
 *   <li><b>Random</b>: opening a file for reading or writing, and a rename, fail with a given
 *       probability, at most a given number of times, on a job's task threads only (never on the
 *       main thread, which creates the catalog and the table).
 *   <li><b>Targeted</b>: when the snapshot a rename publishes is the APPEND snapshot of a chosen
 *       commit (its commit user starts with a given prefix and its identifier is the chosen one),
 *       the next manifest read of the same thread fails, once: that is the COMPACT half's
 *       conflict check of the same commit, so its APPEND is durable and its COMPACT is lost.
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

    private static final Map<String, Object> TARGETED = new LinkedHashMap<>();

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

    /** What became of the targeted failure (empty when none was configured). */
    public static synchronized Map<String, Object> targeted() {
        return new LinkedHashMap<>(TARGETED);
    }

    /** How many random failures fired. */
    public static synchronized int randomFired() {
        return randomFired;
    }

    private static void maybeFail(String operation, Path path) throws IOException {
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
            synchronized (FailingFileIO.class) {
                pendingThread = -1;
                TARGETED.put("fired", true);
            }
            FailureLog.failure(
                    "targeted", "newInputStream", path.toString(), "manifest read after APPEND");
            throw new IOException(INJECTED + ": manifest read after the chosen APPEND " + path);
        }
        maybeFail("newInputStream", path);
        return super.newInputStream(path);
    }

    @Override
    public PositionOutputStream newOutputStream(Path path, boolean overwrite) throws IOException {
        maybeFail("newOutputStream", path);
        return super.newOutputStream(path, overwrite);
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
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

    /** A snapshot was published by this thread: arm the targeted failure if it is the chosen APPEND. */
    private static void published(Path snapshot) throws IOException {
        long self = Thread.currentThread().getId();
        if (pendingThread == self) {
            pendingThread = -1; // the chosen commit had no manifest read after its APPEND
        }
        String user = targetUser;
        if (user == null) {
            return;
        }
        JsonNode s =
                new ObjectMapper()
                        .readTree(Files.readAllBytes(Paths.get(snapshot.toUri().getPath())));
        synchronized (FailingFileIO.class) {
            if (Boolean.TRUE.equals(TARGETED.get("fired")) || TARGETED.containsKey("append")) {
                return;
            }
            if ("APPEND".equals(s.path("commitKind").asText())
                    && s.path("commitUser").asText().startsWith(user)
                    && s.path("commitIdentifier").asLong() == targetIdentifier) {
                TARGETED.put("append", s.path("id").asLong());
                TARGETED.put("commit_user", s.path("commitUser").asText());
                pendingThread = self;
            }
        }
    }
}
