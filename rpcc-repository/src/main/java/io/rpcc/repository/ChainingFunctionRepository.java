package io.rpcc.repository;

import io.rpcc.core.ChainingFunctionSource;
import java.util.Optional;

/**
 * A store of chaining-function sources addressed by content (paper section 3.2): clients upload a
 * source once, chains refer to it by {@link ChainingFunctionSource#id()}, and servers fetch a
 * missing one on first use and cache its compiled form.
 *
 * <p>A server serves a store with {@code RpccServer.builder(name).repository(store)};
 * {@link FileSystemChainingFunctionRepository} and {@link InMemoryChainingFunctionRepository} are the
 * stores rpcc ships. Since ids are content
 * hashes, a changed source is a new id: storing never conflicts with what servers have cached.
 */
public interface ChainingFunctionRepository {
    /** Stores {@code source} (idempotent) and returns its id. */
    String put(ChainingFunctionSource source);

    /** The source with {@code id}, if stored. */
    Optional<ChainingFunctionSource> get(String id);
}
