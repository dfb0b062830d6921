package io.rpcc.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
 *
 * <p>A source can also be a {@linkplain #reference(String, String) reference}: only the id and the
 * name of the repository node that stores the source travel with the chain, and a server that has
 * not compiled it yet fetches it from there (paper section 3.2). Clients make references by
 * themselves for sources over their inline limit.
 */
public final class ChainingFunctionSource {

    /** Run the same chaining function as the current hop. */
    public static final ChainingFunctionSource SAME = new ChainingFunctionSource(null, "", "same");
    /** No chaining function: the service function's result ends the chain. */
    public static final ChainingFunctionSource NONE = new ChainingFunctionSource(null, "", "none");

    private final @Nullable FunctionLanguage language;
    private final String source;
    private final String id;
    private final @Nullable String repository;

    private ChainingFunctionSource(@Nullable FunctionLanguage language, String source, String id) {
        this(language, source, id, null);
    }

    private ChainingFunctionSource(@Nullable FunctionLanguage language, String source, String id,
                                   @Nullable String repository) {
        this.language = language;
        this.source = source;
        this.id = id;
        this.repository = repository;
    }

    /**
     * A reference to a source stored in a repository: the function with content id {@code id},
     * which servers fetch from the repository node {@code repository} on first use.
     */
    public static ChainingFunctionSource reference(String id, String repository) {
        Objects.requireNonNull(repository, "repository");
        int colon = id.indexOf(':');
        FunctionLanguage language = null;
        for (FunctionLanguage l : FunctionLanguage.values()) {
            if (colon > 0 && l.name().equalsIgnoreCase(id.substring(0, colon))) {
                language = l;
            }
        }
        if (language == null || !id.substring(colon + 1).matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("not a chaining-function id: " + id);
        }
        return new ChainingFunctionSource(language, "", id, repository);
    }

    /** This source as a reference to {@code repository}, where it must be stored. */
    public ChainingFunctionSource asReference(String repository) {
        return reference(id, repository);
    }

    /** Whether this is a reference (the source text is in a repository, not here). */
    public boolean isReference() {
        return repository != null;
    }

    /** The repository node of a reference, or {@code null}. */
    public @Nullable String repository() {
        return repository;
    }

    /**
     * A JavaScript chaining function (needs the {@code rpcc-js} module on the servers): a script
     * that evaluates to a function {@code (state, result) => nextHop}, using the global
     * {@code rpcc} object to build the next hop.
     *
     * <pre>{@code
     * ChainingFunctionSource.javascript("(state, result) => state.step === 'region'"
     *     + " ? rpcc.call('inventory-' + result, 'reserve', state.order, {...state, step: 'reserve'})"
     *     + " : rpcc.end(result)");
     * }</pre>
     */
    public static ChainingFunctionSource javascript(String source) {
        return of(FunctionLanguage.JS, source);
    }

    /** A JavaScript chaining function read from a class-path resource (UTF-8). */
    public static ChainingFunctionSource javascriptResource(Class<?> anchor, String resource) {
        return of(FunctionLanguage.JS, javaResource(anchor, resource).source());
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
        String text = resourceText(anchor, resource);
        if (text == null) {
            throw new IllegalArgumentException("no resource " + resource + " next to " + anchor.getName());
        }
        return java(text);
    }

    /** The UTF-8 text of {@code resource} resolved as {@link Class#getResourceAsStream(String)} does, or {@code null}. */
    private static @Nullable String resourceText(Class<?> anchor, String resource) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource + " next to " + anchor.getName(), e);
        }
    }

    /** Where the build puts a function class's source: {@value}{@code <package path>/<Name>.java}. */
    public static final String PACKAGED_SOURCES = "META-INF/rpcc/functions/";

    /**
     * The Java chaining function written as the ordinary class {@code type} in the application's
     * source tree: its source, which the build packaged next to its class file (the
     * {@code rpcc-maven-plugin}'s {@code check-functions} goal copies it to
     * {@value #PACKAGED_SOURCES}{@code com/acme/Checkout.java} after checking it as a server would).
     * The server compiles that source in its sandbox; the class itself never leaves this JVM.
     *
     * <pre>{@code
     * public class Checkout implements ChainingFunction {   // src/main/java/com/acme/Checkout.java
     *     public NextHop apply(ChainState state, Object result) { ... }
     * }
     * client.runChain(ChainCall.to("pricing", "quote").params(order).chainingFunction(ChainingFunctionSource.of(Checkout.class)));
     * }</pre>
     *
     * <p>When the source was not packaged (a run from an IDE that did not run the plugin), it is read
     * from the Maven source folder next to the class's output folder
     * ({@code target/classes/..} → {@code src/main/java/..}), if there is one.
     *
     * <p>A {@link SequentialChain} is shipped the same way ({@code ChainCall.sequential} does it).
     *
     * @throws IllegalArgumentException if {@code type} is not a top-level class implementing
     *     {@link ChainingFunction} or {@link SequentialChain}, or its source cannot be found (the message says what to add to the build)
     */
    public static ChainingFunctionSource of(Class<?> type) {
        Objects.requireNonNull(type, "type");
        if (!(ChainingFunction.class.isAssignableFrom(type) || SequentialChain.class.isAssignableFrom(type))
                || type.getEnclosingClass() != null || type.isInterface()) {
            throw new IllegalArgumentException(type.getName() + " is not a top-level class implementing "
                    + ChainingFunction.class.getName() + " or " + SequentialChain.class.getName()
                    + "; a chaining function shipped by class must be one");
        }
        String file = type.getName().replace('.', '/') + ".java";
        String packaged = resourceText(type, "/" + PACKAGED_SOURCES + file);
        if (packaged != null) {
            return java(packaged);
        }
        java.nio.file.Path fallback = mavenSourceOf(type, file);
        if (fallback != null) {
            try {
                return java(java.nio.file.Files.readString(fallback, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + fallback, e);
            }
        }
        throw new IllegalArgumentException("the source of chaining function " + type.getName() + " is not packaged with "
                + "it (no resource " + PACKAGED_SOURCES + file + "): add the rpcc-maven-plugin with the goal "
                + "check-functions to the build of the module that holds it (docs/guides/chaining-functions.md)");
    }

    /** {@code src/main/java/<file>} of a class compiled to a Maven {@code target/classes} folder, if it exists. */
    private static java.nio.file.@Nullable Path mavenSourceOf(Class<?> type, String file) {
        try {
            java.security.CodeSource code = type.getProtectionDomain().getCodeSource();
            if (code == null || code.getLocation() == null || !"file".equals(code.getLocation().getProtocol())) {
                return null;
            }
            java.nio.file.Path classes = java.nio.file.Path.of(code.getLocation().toURI());
            if (!classes.endsWith(java.nio.file.Path.of("target", "classes"))) {
                return null;
            }
            java.nio.file.Path source = classes.getParent().getParent().resolve("src/main/java").resolve(file);
            return java.nio.file.Files.isRegularFile(source) ? source : null;
        } catch (Exception e) {
            return null;
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
    public @Nullable FunctionLanguage language() {
        return language;
    }

    /** The source text (empty for {@link #SAME}, {@link #NONE} and references). */
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
        if (language == null) {
            return "ChainingFunctionSource." + id.toUpperCase(java.util.Locale.ROOT);
        }
        return "ChainingFunctionSource[" + id.substring(0, Math.min(id.length(), 17)) + "…, "
                + (repository != null ? "in repository '" + repository + "'" : source.length() + " chars") + "]";
    }
}
