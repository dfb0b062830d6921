package io.rpcc.repository;

import io.rpcc.core.ChainingFunctionSource;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link ChainingFunctionRepository} in memory, for tests and single-process use. Thread-safe. */
public final class InMemoryChainingFunctionRepository implements ChainingFunctionRepository {
    private final Map<String, ChainingFunctionSource> sources = new ConcurrentHashMap<>();

    @Override
    public String put(ChainingFunctionSource source) {
        if (source.language() == null) {
            throw new IllegalArgumentException(source + " is not a source that can be stored");
        }
        sources.putIfAbsent(source.id(), source);
        return source.id();
    }

    @Override
    public Optional<ChainingFunctionSource> get(String id) {
        return Optional.ofNullable(sources.get(id));
    }
}
