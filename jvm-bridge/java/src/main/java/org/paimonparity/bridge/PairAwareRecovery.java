package org.paimonparity.bridge;

import org.apache.paimon.Snapshot;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.utils.SnapshotManager;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A recovery step a restarted job can run today, on a released Paimon, before {@code
 * filterAndCommit}: it closes the commits whose APPEND snapshot is durable and whose COMPACT
 * snapshot is not (a failure between the two publications of {@code FileStoreCommitImpl.commit}),
 * which {@code filterCommitted} would otherwise drop whole, losing the compaction and the changelog
 * a {@code full-compaction} or {@code lookup} changelog producer put in it.
 *
 * <p>For each committable, oldest identifier first, it reads the commit user's snapshots of that
 * identifier (walking back from the latest snapshot to the first of the user's snapshots with a
 * smaller identifier). When they hold an APPEND (or OVERWRITE) and no COMPACT, it commits the
 * committable's COMPACT half alone, with the same identifier, through the released {@code
 * TableCommitImpl.commit(identifier, messages)} of a commit that ignores empty commits (so no
 * second APPEND is made). When a later commit has already removed a file a message's half
 * compacts (a dedicated compaction job, another writer), committing it would fail with "File
 * deletion conflicts detected! Give up committing." and the job could never restart; that half is
 * left out: the later compaction rewrote the same files, and with a {@code lookup} or {@code
 * full-compaction} changelog producer it made the changelog of the same changes (committing the
 * half's own changelog too would deliver them twice, which the sweep's scenario {@code
 * compaction-job-while-down} shows). Then {@code filterAndCommit} does what it always does with
 * every committable (it now finds the repaired identifiers committed).
 *
 * <p>A Flink job's committer would call {@link #recover} where it calls {@code filterAndCommit}
 * on restore ({@code StoreCommitter.filterAndCommit}), with its table, commit user and commit.
 */
public final class PairAwareRecovery {

    private PairAwareRecovery() {}

    /** What one recovery did: identifiers whose COMPACT half it committed, or left out. */
    public static final class Outcome {
        /** Identifiers whose COMPACT half was committed (the messages that do not conflict). */
        public final List<Long> compactHalves = new ArrayList<>();
        /** Identifiers with a message whose COMPACT half was left out: a later commit compacted it. */
        public final List<Long> conflicts = new ArrayList<>();
        /** What {@code filterAndCommit} committed afterwards. */
        public int stock;

        /** Identifiers committed in all. */
        public int committed() {
            return compactHalves.size() + stock;
        }
    }

    /**
     * Commits the missing COMPACT halves of {@code committables} (see the class), then calls {@code
     * commit.filterAndCommit(committables)}.
     *
     * @param table the table, as the job's commit sees it (its FileIO and dynamic options)
     * @param commitUser the job's commit user
     * @param committables the restored committables: identifier to the messages of its checkpoint
     * @param commit the job's commit, used for {@code filterAndCommit}
     */
    public static Outcome recover(
            FileStoreTable table,
            String commitUser,
            Map<Long, List<CommitMessage>> committables,
            StreamTableCommit commit)
            throws Exception {
        Outcome outcome = new Outcome();
        for (Map.Entry<Long, List<CommitMessage>> e : new TreeMap<>(committables).entrySet()) {
            long identifier = e.getKey();
            Set<Snapshot.CommitKind> kinds = kindsOf(table, commitUser, identifier);
            if (kinds.contains(Snapshot.CommitKind.COMPACT)
                    || !(kinds.contains(Snapshot.CommitKind.APPEND)
                            || kinds.contains(Snapshot.CommitKind.OVERWRITE))) {
                continue; // complete, or nothing durable: filterAndCommit decides
            }
            List<CommitMessage> half = new ArrayList<>();
            boolean conflict = false;
            for (CommitMessage m : e.getValue()) {
                CommitMessageImpl message = (CommitMessageImpl) m;
                if (allLive(table, message, compactBefore(message))) {
                    CommitHalves.compactHalf(message).ifPresent(half::add);
                } else if (CommitHalves.compactHalf(message).isPresent()) {
                    conflict = true;
                }
            }
            if (conflict) {
                outcome.conflicts.add(identifier);
            }
            if (half.isEmpty()) {
                continue; // the commit had no COMPACT half, or a later commit compacted it
            }
            try (TableCommitImpl own = table.newCommit(commitUser).ignoreEmptyCommit(true)) {
                own.commit(identifier, half);
            }
            outcome.compactHalves.add(identifier);
        }
        outcome.stock = commit.filterAndCommit(committables);
        return outcome;
    }

    /**
     * The commit kinds of the snapshots {@code commitUser} made with {@code identifier}, from the
     * latest snapshot back to the first of the user's with a smaller identifier (or the earliest
     * snapshot kept).
     */
    static Set<Snapshot.CommitKind> kindsOf(
            FileStoreTable table, String commitUser, long identifier) {
        Set<Snapshot.CommitKind> kinds = EnumSet.noneOf(Snapshot.CommitKind.class);
        SnapshotManager snapshots = table.snapshotManager();
        Long latest = snapshots.latestSnapshotId();
        Long earliest = snapshots.earliestSnapshotId();
        if (latest == null || earliest == null) {
            return kinds;
        }
        for (long id = latest; id >= earliest; id--) {
            if (!snapshots.snapshotExists(id)) {
                continue;
            }
            Snapshot s = snapshots.snapshot(id);
            if (!commitUser.equals(s.commitUser())) {
                continue;
            }
            if (s.commitIdentifier() < identifier) {
                break;
            }
            if (s.commitIdentifier() == identifier) {
                kinds.add(s.commitKind());
            }
        }
        return kinds;
    }

    /** The names of the files the message's compaction removes (the same API on every release). */
    private static Set<String> compactBefore(CommitMessageImpl m) {
        Set<String> names = new HashSet<>();
        for (DataFileMeta f : m.compactIncrement().compactBefore()) {
            names.add(f.fileName());
        }
        return names;
    }

    /** Whether every file in {@code names} is live in the message's bucket at the latest snapshot. */
    private static boolean allLive(FileStoreTable table, CommitMessageImpl m, Set<String> names) {
        if (names.isEmpty()) {
            return true;
        }
        Long latest = table.snapshotManager().latestSnapshotId();
        if (latest == null) {
            return false;
        }
        Set<String> live = new HashSet<>();
        for (ManifestEntry entry :
                table.store()
                        .newScan()
                        .withSnapshot(latest)
                        .withPartitionBucket(m.partition(), m.bucket())
                        .plan()
                        .files()) {
            live.add(entry.file().fileName());
        }
        return live.containsAll(names);
    }
}
