package io.rpcc.repository;

import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.FunctionLanguage;
import io.rpcc.core.internal.function.RepositoryProtocol;
import io.rpcc.server.RpccServer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The chaining-function repository as an rpcc service (paper section 3.2): installs its service
 * functions on any server. Clients configured with {@code RpccClient.builder().repository(name)}
 * upload their large functions there once; servers fetch a function they have not compiled yet by
 * its content id, then keep the compiled form in their cache.
 *
 * <pre>{@code
 * RpccServer repo = RepositoryService.install(RpccServer.builder("repo").resolver(names),
 *         new FileSystemChainingFunctionRepository(Path.of("functions"))).build().start();
 * }</pre>
 */
public final class RepositoryService {
    private final ChainingFunctionRepository store;
    private final AtomicLong puts = new AtomicLong();
    private final AtomicLong gets = new AtomicLong();

    private RepositoryService(ChainingFunctionRepository store) {
        this.store = store;
    }

    /** Adds the repository's service functions, backed by {@code store}, to {@code server}. */
    public static RpccServer.Builder install(RpccServer.Builder server, ChainingFunctionRepository store) {
        return install(server, new RepositoryService(store));
    }

    /** Adds {@code service}'s functions to {@code server} (to keep a handle on its counters). */
    public static RpccServer.Builder install(RpccServer.Builder server, RepositoryService service) {
        return server.service(RepositoryProtocol.PUT, service::put).service(RepositoryProtocol.GET, service::get);
    }

    /** A service backed by {@code store}, to install with {@link #install(RpccServer.Builder, RepositoryService)}. */
    public static RepositoryService of(ChainingFunctionRepository store) {
        return new RepositoryService(store);
    }

    private Object put(Object params) {
        if (!(params instanceof List<?> parts) || parts.size() != 2 || !(parts.get(0) instanceof String lang)
                || !(parts.get(1) instanceof String source)) {
            throw new IllegalArgumentException(RepositoryProtocol.PUT + " takes [language, source], got " + params);
        }
        puts.incrementAndGet();
        return store.put(ChainingFunctionSource.of(FunctionLanguage.valueOf(lang), source));
    }

    private Object get(Object params) {
        if (!(params instanceof String id)) {
            throw new IllegalArgumentException(RepositoryProtocol.GET + " takes an id, got " + params);
        }
        gets.incrementAndGet();
        return store.get(id).map(s -> List.of(s.language().name(), s.source())).orElse(null);
    }

    /** Sources stored (uploads). */
    public long puts() {
        return puts.get();
    }

    /** Sources fetched. */
    public long gets() {
        return gets.get();
    }
}
