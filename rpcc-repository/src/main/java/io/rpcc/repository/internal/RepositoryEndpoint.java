package io.rpcc.repository.internal;

import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.spi.EngineSpi;
import io.rpcc.repository.ChainingFunctionRepository;
import java.util.Arrays;

/**
 * The repository's side of the {@link RepositoryProtocol}: the two service functions that serve a
 * {@link ChainingFunctionRepository} from a node. A request of the wrong shape fails its call with
 * an {@link IllegalArgumentException} that says what the function takes.
 */
@EngineSpi
public final class RepositoryEndpoint {
    private final ChainingFunctionRepository store;

    /** The service functions over {@code store}. */
    public RepositoryEndpoint(ChainingFunctionRepository store) {
        this.store = store;
    }

    /** Service function {@value RepositoryProtocol#PUT}: stores {@code [language, source]}, answers its id. */
    public Object put(Object params) {
        ChainingFunctionSource source = RepositoryProtocol.decodeSource(params).orElseThrow(() ->
                new IllegalArgumentException(RepositoryProtocol.PUT + " takes [language, source] with a language of "
                        + Arrays.toString(FunctionLanguage.values()) + ", got "
                        + RepositoryProtocol.describe(params)));
        return store.put(source);
    }

    /** Service function {@value RepositoryProtocol#GET}: answers {@code [language, source]} of an id, or {@code null}. */
    public Object get(Object params) {
        String id = RepositoryProtocol.decodeId(params).orElseThrow(() -> new IllegalArgumentException(
                RepositoryProtocol.GET + " takes a chaining-function id, got " + RepositoryProtocol.describe(params)));
        return store.get(id).map(RepositoryProtocol::encodeSource).orElse(null);
    }
}
