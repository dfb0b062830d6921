package io.rpcc.core.internal.function;

/**
 * The service functions of a chaining-function repository node, and their messages (built-in types
 * only, so any node can call them).
 *
 * <ul>
 *   <li>{@value #PUT}: params {@code List.of(language, source)} (e.g. {@code "JAVA"}), returns the id;</li>
 *   <li>{@value #GET}: params the id, returns {@code List.of(language, source)} or {@code null}.</li>
 * </ul>
 */
public final class RepositoryProtocol {
    /** Stores a source. */
    public static final String PUT = "rpcc.repository.put";
    /** Fetches a source by id. */
    public static final String GET = "rpcc.repository.get";

    private RepositoryProtocol() {
    }
}
