package org.paimonparity.bridge;

import org.apache.paimon.io.DataOutputViewStreamWrapper;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A planned split in the form other readers decode (the external-reader protocol's {@code
 * java_split}), the same code for every release:
 *
 * <ul>
 *   <li>where the release has {@code org.apache.paimon.table.source.SplitSerializer} (2.0), its
 *       {@code serialize(Split)} frame ({@code SPLIT_V1}, the split type, its body), format {@code
 *       "split-v1"};
 *   <li>else (1.0-1.4) a {@code DataSplit}'s raw {@code DataSplit#serialize} body, format {@code
 *       "data-split"}, and {@code null} for any other split (1.4's {@code IncrementalSplit}).
 * </ul>
 *
 * <p>{@code data_split_version} is the release's {@code DataSplit.VERSION} (private there: 5 in
 * 1.0, 6 in 1.1-1.2, 8 from 1.3), read reflectively.
 */
final class SplitWire {

    private SplitWire() {}

    private static final String SPLIT_SERIALIZER = "org.apache.paimon.table.source.SplitSerializer";

    /** {@code SplitSerializer.serialize(Split)} of 2.0, or {@code null} when the release has none. */
    private static final Method SERIALIZE = splitSerializer();

    /** The release's {@code DataSplit.VERSION}. */
    static final int DATA_SPLIT_VERSION = dataSplitVersion();

    static Map<String, Object> of(Split split) throws IOException {
        byte[] bytes;
        String format;
        if (SERIALIZE != null) {
            format = "split-v1";
            try {
                bytes = (byte[]) SERIALIZE.invoke(null, split);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof IOException) {
                    throw (IOException) cause;
                }
                if (cause instanceof RuntimeException) {
                    throw (RuntimeException) cause;
                }
                throw new IllegalStateException(cause);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        } else if (split instanceof DataSplit) {
            format = "data-split";
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ((DataSplit) split).serialize(new DataOutputViewStreamWrapper(out));
            bytes = out.toByteArray();
        } else {
            return null;
        }
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("format", format);
        wire.put("data_split_version", DATA_SPLIT_VERSION);
        wire.put("base64", Base64.getEncoder().encodeToString(bytes));
        return wire;
    }

    private static Method splitSerializer() {
        Class<?> c;
        try {
            c = Class.forName(SPLIT_SERIALIZER, false, SplitWire.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return null;
        }
        try {
            return c.getMethod("serialize", Split.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(SPLIT_SERIALIZER + " has no serialize(Split)", e);
        }
    }

    private static int dataSplitVersion() {
        try {
            Field f = DataSplit.class.getDeclaredField("VERSION");
            f.setAccessible(true);
            return f.getInt(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read DataSplit.VERSION", e);
        }
    }
}
