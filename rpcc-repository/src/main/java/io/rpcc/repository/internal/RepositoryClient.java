package io.rpcc.repository.internal;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.NodeClosedException;
import io.rpcc.core.NodeShuttingDownException;
import io.rpcc.core.RepositoryUnavailableException;
import io.rpcc.core.internal.chain.Node;
import io.rpcc.core.internal.wire.HopFailure;
import io.rpcc.core.internal.wire.LocatedFailure;
import io.rpcc.core.spi.EngineSpi;
import java.time.Duration;
import java.util.List;

/**
 * A node's side of the {@link RepositoryProtocol}, over the node's plain call: {@link #put} stores
 * a source in a repository node (a client uploading a large function), {@link #get} fetches the
 * source of a reference (a server, or a client in interactive mode, about to compile it). Every
 * answer is checked; what goes wrong is a typed error naming the repository node and the function.
 */
@EngineSpi
public final class RepositoryClient {
    private final Node node;

    /** The repository client of {@code node}. */
    public RepositoryClient(Node node) {
        this.node = node;
    }

    /**
     * Stores {@code source} in repository node {@code repository}, waiting up to {@code timeout},
     * and returns its id.
     *
     * @throws RepositoryUnavailableException if the repository cannot be reached, fails to
     *     store the source, or answers anything but the source's id (host: this node, hop 0)
     * @throws NodeClosedException if this node is closed, {@link NodeShuttingDownException} if it is draining
     */
    public String put(String repository, ChainingFunctionSource source, Duration timeout) {
        Object answer;
        try {
            answer = node.call(repository, RepositoryProtocol.PUT, RepositoryProtocol.encodeSource(source), timeout);
        } catch (ChainException e) {
            if (e instanceof NodeClosedException && node.name().equals(e.host())) {
                throw e; // this node closed or is draining (NodeShuttingDownException is a NodeClosedException)
            }
            throw unavailable("cannot store chaining function " + source.id() + " in repository '" + repository
                    + "': " + e.getClass().getSimpleName() + ": " + e.remoteMessage(), e);
        }
        String id = RepositoryProtocol.decodeId(answer).orElse(null);
        if (!source.id().equals(id)) {
            throw unavailable("repository '" + repository + "' answered " + RepositoryProtocol.describe(answer)
                    + " to " + RepositoryProtocol.PUT + " of chaining function " + source.id() + ", not its id: is '"
                    + repository + "' a repository node (RpccServer.builder(name).repository(store))?", null);
        }
        return id;
    }

    /**
     * The source of {@code reference}, fetched from the repository node it names (waiting up to the
     * node's connect timeout) and checked against its id. Failures are {@link HopFailure}s, which
     * the hop that needed the function reports with its index and host.
     *
     * @throws HopFailure {@link ChainErrorCode#FUNCTION_NOT_FOUND} if the repository does not have it;
     *     {@link ChainErrorCode#REPOSITORY_UNAVAILABLE} if it cannot be reached or answers anything but
     *     that function's source
     */
    public ChainingFunctionSource get(ChainingFunctionSource reference) {
        String repository = reference.repository();
        Object answer;
        try {
            answer = node.call(repository, RepositoryProtocol.GET, reference.id(), node.settings().connectTimeout());
        } catch (RuntimeException e) {
            String why = e instanceof ChainException ce ? ce.getClass().getSimpleName() + ": " + ce.remoteMessage()
                    : e.toString();
            throw new HopFailure(ChainErrorCode.REPOSITORY_UNAVAILABLE, "cannot fetch chaining function " + reference.id()
                    + " from repository '" + repository + "': " + why, e);
        }
        if (answer == null) {
            throw new HopFailure(ChainErrorCode.FUNCTION_NOT_FOUND, "repository '" + repository
                    + "' has no chaining function " + reference.id());
        }
        ChainingFunctionSource source = RepositoryProtocol.decodeSource(answer).orElseThrow(() -> new HopFailure(
                ChainErrorCode.REPOSITORY_UNAVAILABLE, "repository '" + repository + "' answered "
                + RepositoryProtocol.describe(answer) + " to " + RepositoryProtocol.GET + " of chaining function "
                + reference.id() + ", not [language, source]: is '" + repository + "' a repository node"
                + " (RpccServer.builder(name).repository(store))?"));
        if (!source.id().equals(reference.id())) {
            throw new HopFailure(ChainErrorCode.REPOSITORY_UNAVAILABLE, "repository '" + repository
                    + "' answered a source with id " + source.id() + " to " + RepositoryProtocol.GET
                    + " of chaining function " + reference.id() + ": its store is corrupt");
        }
        return source;
    }

    private RepositoryUnavailableException unavailable(String message, Throwable cause) {
        return new RepositoryUnavailableException(LocatedFailure.detected(ChainErrorCode.REPOSITORY_UNAVAILABLE, message,
                node.name(), 0, List.of()).failure(), cause);
    }
}
