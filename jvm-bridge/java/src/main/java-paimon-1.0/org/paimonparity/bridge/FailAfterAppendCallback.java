package org.paimonparity.bridge;

import org.apache.paimon.Snapshot;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.table.sink.CommitCallback;

import java.util.List;

/**
 * The commit-callback fault of {@link Faults}, for the {@code CommitCallback} of the 1.0-1.2
 * generation: {@code call(List<ManifestEntry>, Snapshot)} is the abstract method in 1.0 and 1.1,
 * {@code call(List<ManifestEntry>, List<IndexManifestEntry>, Snapshot)} in 1.2. Both are
 * implemented (neither marked {@code @Override}), so that this one source compiles against each
 * release and the release calls the one it declares. Named in the writer's {@code commit.callbacks}
 * option; does nothing unless armed.
 */
public final class FailAfterAppendCallback implements CommitCallback {

    private final String tableDir;

    /** Used by {@code CallbackUtils} without a parameter: never fires. */
    public FailAfterAppendCallback() {
        this(null);
    }

    /**
     * Used by {@code CallbackUtils} with {@code commit.callback.<class>.param}: the table directory
     * whose faults it fires.
     */
    public FailAfterAppendCallback(String tableDir) {
        this.tableDir = tableDir;
    }

    /** The callback of 1.0 and 1.1. */
    public void call(List<ManifestEntry> committedEntries, Snapshot snapshot) {
        Faults.afterSnapshot(tableDir, snapshot.commitKind().name(), snapshot.id());
    }

    /** The callback of 1.2. */
    public void call(
            List<ManifestEntry> committedEntries,
            List<IndexManifestEntry> indexFiles,
            Snapshot snapshot) {
        call(committedEntries, snapshot);
    }

    @Override
    public void retry(ManifestCommittable committable) {}

    @Override
    public void close() {}
}
