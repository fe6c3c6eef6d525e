package org.paimonparity.bridge;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Describes a Java exception for the Rust side (jvm-bridge's {@code Error::Java}). */
public final class Errors {

    private Errors() {}

    /**
     * Returns {@code {class name, message, full stack trace}} of {@code t}.
     *
     * <p>The message is {@code t.getMessage()}; when that is null, the first non-null message of
     * its causes (as {@code "caused by <class>: <message>"}), else the empty string. The stack trace
     * is {@code printStackTrace()}'s output, causes and suppressed exceptions included.
     */
    public static String[] describe(Throwable t) {
        StringWriter stack = new StringWriter();
        try (PrintWriter out = new PrintWriter(stack)) {
            t.printStackTrace(out);
        }
        String message = t.getMessage();
        if (message == null) {
            message = "";
            for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
                if (c.getMessage() != null) {
                    message = "caused by " + c.getClass().getName() + ": " + c.getMessage();
                    break;
                }
            }
        }
        return new String[] {t.getClass().getName(), message, stack.toString()};
    }
}
