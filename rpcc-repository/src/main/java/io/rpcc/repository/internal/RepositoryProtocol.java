package io.rpcc.repository.internal;

import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.spi.EngineSpi;
import java.util.List;
import java.util.Optional;

/**
 * The service functions of a chaining-function repository node and their messages, which use
 * built-in types only so that any node can call them without registering a type.
 *
 * <ul>
 *   <li>{@value #PUT}: params {@code List.of(language, source)} (the {@link FunctionLanguage} name,
 *       e.g. {@code "JAVA"}), answers the stored source's id;</li>
 *   <li>{@value #GET}: params the id, answers {@code List.of(language, source)}, or {@code null} if
 *       the repository does not have it.</li>
 * </ul>
 *
 * <p>The decoders accept exactly these shapes: anything else is {@link Optional#empty()}, for the
 * caller to turn into an error that names the peer.
 */
@EngineSpi
public final class RepositoryProtocol {
    /** Stores a source. */
    public static final String PUT = "rpcc.repository.put";
    /** Fetches a source by id. */
    public static final String GET = "rpcc.repository.get";

    private RepositoryProtocol() {
    }

    /** The message {@code [language, source]} that carries {@code source} (a request of {@link #PUT}, an answer of {@link #GET}). */
    public static List<String> encodeSource(ChainingFunctionSource source) {
        if (source.language() == null || source.isReference()) {
            throw new IllegalArgumentException(source + " has no source to send");
        }
        return List.of(source.language().name(), source.source());
    }

    /** The source that {@code message} carries, if it is {@code [language, source]} with a known language. */
    public static Optional<ChainingFunctionSource> decodeSource(Object message) {
        if (!(message instanceof List<?> parts) || parts.size() != 2 || !(parts.get(0) instanceof String language)
                || !(parts.get(1) instanceof String source)) {
            return Optional.empty();
        }
        for (FunctionLanguage l : FunctionLanguage.values()) {
            if (l.name().equals(language)) {
                return Optional.of(ChainingFunctionSource.of(l, source));
            }
        }
        return Optional.empty();
    }

    /** The id that {@code message} (a request of {@link #GET}, an answer of {@link #PUT}) carries, if it is one. */
    public static Optional<String> decodeId(Object message) {
        return message instanceof String id && !id.isEmpty() ? Optional.of(id) : Optional.empty();
    }

    /** {@code message} for an error text: its type and, cut to a few dozen chars, its value. */
    static String describe(Object message) {
        if (message == null) {
            return "null";
        }
        String text = String.valueOf(message);
        return message.getClass().getSimpleName() + " " + (text.length() > 80 ? text.substring(0, 80) + "..." : text);
    }
}
