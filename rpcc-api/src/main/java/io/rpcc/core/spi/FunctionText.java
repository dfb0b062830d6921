package io.rpcc.core.spi;

import io.rpcc.core.ChainingFunctionSource;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a chaining function makes a failure say, bounded so that it fits in an ERROR frame, and the
 * short id that tells functions apart in messages: for plug-ins, so that every language reports
 * alike.
 */
public final class FunctionText {
    /** The longest error message or stack line reported from a chaining function, in chars. */
    public static final int MAX_MESSAGE_CHARS = 2000;

    private FunctionText() {
    }

    /** The start of {@code source}'s id, enough to tell functions apart in a message. */
    public static String shortId(ChainingFunctionSource source) {
        String id = source.id();
        return id.length() <= 17 ? id : id.substring(0, 17) + "…";
    }

    /** The first lines of {@code t}'s stack trace, for failure details, each {@link #bounded}. */
    public static List<String> stackTrace(Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        int n = Math.min(st.length, 12);
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            out[i] = bounded("at " + st[i]);
        }
        return List.of(out);
    }

    /**
     * {@code s} cut to {@link #MAX_MESSAGE_CHARS}, saying how long it was: what a chaining function
     * of any language makes a failure say must fit in an ERROR frame.
     */
    public static @Nullable String bounded(@Nullable String s) {
        if (s == null || s.length() <= MAX_MESSAGE_CHARS) {
            return s;
        }
        return s.substring(0, MAX_MESSAGE_CHARS) + "… (" + s.length() + " chars in all)";
    }
}
