package org.paimonparity.bridge;

import org.apache.paimon.Snapshot;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.SimpleFileEntry;
import org.apache.paimon.table.sink.CommitCallback;

import java.util.List;

/**
 * The commit-callback fault of {@link Faults}, for the {@code CommitCallback} signature of Paimon
 * 1.3 ({@code call(List<SimpleFileEntry>, List<ManifestEntry>, List<IndexManifestEntry>,
 * Snapshot)}). Named in the writer's {@code commit.callbacks} option; does nothing unless armed.
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

    @Override
    public void call(
            List<SimpleFileEntry> baseFiles,
            List<ManifestEntry> deltaFiles,
            List<IndexManifestEntry> indexFiles,
            Snapshot snapshot) {
        Faults.afterSnapshot(tableDir, snapshot.commitKind().name(), snapshot.id());
    }

    @Override
    public void retry(ManifestCommittable committable) {}

    @Override
    public void close() {}
}
