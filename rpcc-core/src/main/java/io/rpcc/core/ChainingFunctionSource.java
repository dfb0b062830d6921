package io.rpcc.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The source code of a chaining function, addressed by content: its {@link #id()} is a hash of the
 * language and the source, so servers compile a given source once and cache it.
 *
 * <p>Java sources hold one public class that implements {@link ChainingFunction}:
 *
 * <pre>{@code
 * ChainingFunctionSource route = ChainingFunctionSource.java("""
 *     import io.rpcc.core.*;
 *     public class Route implements ChainingFunction {
 *         public NextHop apply(ChainState state, Object result) {
 *             return NextHop.end(result);
 *         }
 *     }
 *     """);
 * ChainingFunctionSource fromFile = ChainingFunctionSource.javaResource(MyApp.class, "/chains/Route.java");
 * }</pre>
 *
 * <p>Two special values are used in {@link NextHop.Call}: {@link #SAME} (run the current chaining
 * function again at the next hop) and {@link #NONE} (no chaining function: the next service
 * function's result ends the chain).
 */
public final class ChainingFunctionSource {

    /** Run the same chaining function as the current hop. */
    public static final ChainingFunctionSource SAME = new ChainingFunctionSource(null, "", "same");
    /** No chaining function: the service function's result ends the chain. */
    public static final ChainingFunctionSource NONE = new ChainingFunctionSource(null, "", "none");

    private final FunctionLanguage language;
    private final String source;
    private final String id;

    private ChainingFunctionSource(FunctionLanguage language, String source, String id) {
        this.language = language;
        this.source = source;
        this.id = id;
    }

    /** A Java chaining function from its source text. */
    public static ChainingFunctionSource java(String source) {
        return of(FunctionLanguage.JAVA, source);
    }

    /**
     * A Java chaining function read from a class-path resource (UTF-8).
     *
     * @param anchor a class whose class loader and package resolve {@code resource}
     * @param resource the resource name, as for {@link Class#getResourceAsStream(String)}
     */
    public static ChainingFunctionSource javaResource(Class<?> anchor, String resource) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no resource " + resource + " next to " + anchor.getName());
            }
            return java(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    /** A chaining function in {@code language} from its source text. */
    public static ChainingFunctionSource of(FunctionLanguage language, String source) {
        Objects.requireNonNull(language, "language");
        Objects.requireNonNull(source, "source");
        return new ChainingFunctionSource(language, source, contentId(language, source));
    }

    /**
     * The content address of a source: {@code <language>:<sha-256 of language and source, hex>}.
     */
    public static String contentId(FunctionLanguage language, String source) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(language.name().getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(source.getBytes(StandardCharsets.UTF_8));
            return language.name().toLowerCase(java.util.Locale.ROOT) + ":" + HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** The language, or {@code null} for {@link #SAME} and {@link #NONE}. */
    public FunctionLanguage language() {
        return language;
    }

    /** The source text (empty for {@link #SAME} and {@link #NONE}). */
    public String source() {
        return source;
    }

    /** The content id, see {@link #contentId(FunctionLanguage, String)}. */
    public String id() {
        return id;
    }

    /** Whether this is {@link #SAME}. */
    public boolean isSame() {
        return this == SAME;
    }

    /** Whether this is {@link #NONE}. */
    public boolean isNone() {
        return this == NONE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChainingFunctionSource other && id.equals(other.id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return language == null ? "ChainingFunctionSource." + id.toUpperCase(java.util.Locale.ROOT)
                : "ChainingFunctionSource[" + id.substring(0, Math.min(id.length(), 17)) + "…, " + source.length() + " chars]";
    }
}
