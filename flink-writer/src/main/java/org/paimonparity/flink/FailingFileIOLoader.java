package org.paimonparity.flink;

import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileIOLoader;
import org.apache.paimon.fs.Path;

/**
 * Registers {@link FailingFileIO} under the scheme {@value FailingFileIO#SCHEME} (through {@code
 * META-INF/services/org.apache.paimon.fs.FileIOLoader}), so that a warehouse at {@code
 * ppfail:///dir} is written through it.
 */
public class FailingFileIOLoader implements FileIOLoader {

    private static final long serialVersionUID = 1L;

    @Override
    public String getScheme() {
        return FailingFileIO.SCHEME;
    }

    @Override
    public FileIO load(Path path) {
        return new FailingFileIO();
    }
}
