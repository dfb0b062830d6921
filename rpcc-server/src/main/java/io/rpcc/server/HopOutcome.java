package io.rpcc.server;

import io.rpcc.core.ChainException;
import io.rpcc.core.NodeClosedException;
import io.rpcc.core.NodeShuttingDownException;
import io.rpcc.core.UnstableApi;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How one hop ended at a server, as its {@link HopDecorator}s are told: where the chain went from
 * here, or that it failed, was cancelled or was refused. Switch over it:
 *
 * <pre>{@code
 * String label = switch (outcome) {
 *     case HopOutcome.Forwarded f -> "forwarded to " + f.server();
 *     case HopOutcome.Finished f -> "ended the chain";
 *     case HopOutcome.Failed f -> "failed: " + f.failure().code();
 *     default -> outcome.getClass().getSimpleName();
 * };
 * }</pre>
 *
 * <p>{@link #succeeded()} says whether the chain went on (or ended with its result) from this hop;
 * {@link #failure()} gives the exception of a failed or refused hop.
 */
@UnstableApi
public sealed interface HopOutcome {

    /**
     * Whether the hop did its part: the chain went on from it ({@link Forwarded}, {@link SubChainStarted},
     * {@link Returned}, {@link BranchEnded}, {@link Split}, {@link Delegated}) or ended here with its
     * result ({@link Finished}); {@code false} for {@link Failed}, {@link Cancelled} and {@link Refused}.
     */
    default boolean succeeded() {
        return !(this instanceof Failed || this instanceof Cancelled || this instanceof Refused);
    }

    /** The failure of a {@link Failed} or {@link Refused} hop, else {@code null}. */
    default @Nullable ChainException failure() {
        return switch (this) {
            case Failed f -> f.failure();
            case Refused r -> r.failure();
            default -> null;
        };
    }

    /**
     * The chain went on to its next hop: its request was written to {@code server}.
     *
     * @param server the server of the next hop
     * @param serviceFunction the service function it calls
     */
    record Forwarded(String server, String serviceFunction) implements HopOutcome {
        /** Both are required. */
        public Forwarded {
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(serviceFunction, "serviceFunction");
        }
    }

    /**
     * The chain ended at this hop: its result was sent to the chain's originator.
     *
     * @param result the chain's result
     */
    record Finished(@Nullable Object result) implements HopOutcome {
    }

    /**
     * The hop's service function returned a sub-chain, which started: its first request was written
     * to {@code server}. The hop's chaining function runs when the sub-chain's result comes back (a
     * hop of kind {@link HopDecorator.Kind#SUB_CHAIN_RETURN}, here or, for a composed sub-chain,
     * where it ends).
     *
     * @param server the server of the sub-chain's first hop
     * @param serviceFunction the service function it calls
     */
    record SubChainStarted(String server, String serviceFunction) implements HopOutcome {
        /** Both are required. */
        public SubChainStarted {
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(serviceFunction, "serviceFunction");
        }
    }

    /**
     * The hop ended a sub-chain: its result went back to the node that started the sub-chain, whose
     * chaining function goes on from it; {@code composed}, that chaining function runs next here, on
     * this hop's thread (as a hop of kind {@link HopDecorator.Kind#SUB_CHAIN_RETURN}), with no crossing
     * back.
     *
     * @param creator the node that started the sub-chain
     * @param composed whether the parent chain goes on here instead of at {@code creator}
     */
    record Returned(String creator, boolean composed) implements HopOutcome {
        /** The creator is required. */
        public Returned {
            Objects.requireNonNull(creator, "creator");
        }
    }

    /**
     * The hop ended a branch of a split chain: the branch's result went to the split's merge host.
     *
     * @param mergeHost the node where the split's branches merge
     */
    record BranchEnded(String mergeHost) implements HopOutcome {
        /** The merge host is required. */
        public BranchEnded {
            Objects.requireNonNull(mergeHost, "mergeHost");
        }
    }

    /**
     * The chain split: each branch's first request was sent to its server, and the split waits for
     * its branches at {@code mergeHost}. A branch that could not be reached fails as a branch (its
     * failure goes to the merge host), which does not change this outcome.
     *
     * @param branches the server of each branch's first hop, in the split's order
     * @param mergeHost the node where the branches merge
     */
    record Split(List<String> branches, String mergeHost) implements HopOutcome {
        /** Copies the branches; both are required. */
        public Split {
            branches = List.copyOf(branches);
            Objects.requireNonNull(mergeHost, "mergeHost");
        }
    }

    /**
     * The hop's service function ran here and its chaining function was handed, with the result, to
     * this server's chaining proxy ({@code RpccServer.Builder.chainingProxy}), which decides where
     * the chain goes (a hop of kind {@link HopDecorator.Kind#CHAINING_PROXY} there).
     *
     * @param proxy the chaining proxy
     */
    record Delegated(String proxy) implements HopOutcome {
        /** The proxy is required. */
        public Delegated {
            Objects.requireNonNull(proxy, "proxy");
        }
    }

    /**
     * The hop failed, and this server reported the failure: to the chain's originator, which ends
     * the chain with {@code failure} (naming this hop and host), or first to the node that started
     * the sub-chain the hop is in, or to the merge host of the split its branch is on, either of which
     * may recover. Includes a hop that a {@link HopDecorator} or a {@link ServerInterceptor} rejected
     * ({@link io.rpcc.core.HopRejectedException}), one that started past the chain's deadline, one
     * whose next hop could not be reached or whose result could not be sent, one whose work started
     * through its context failed after the hop handed the chain on (the chain ends with that failure),
     * and one abandoned because the server was closed ({@link NodeClosedException}).
     *
     * @param failure the exception as the originator sees it
     */
    record Failed(ChainException failure) implements HopOutcome {
        /** The failure is required. */
        public Failed {
            Objects.requireNonNull(failure, "failure");
        }
    }

    /**
     * The chain was cancelled while the hop was here (its originator had ended it): the hop stopped
     * where it was and sent nothing more.
     */
    record Cancelled() implements HopOutcome {
    }

    /**
     * The hop arrived and did not run: the server was draining ({@link RpccServer#shutdown}) and
     * refused it with {@code failure} (a {@link NodeShuttingDownException}), which its originator gets.
     *
     * @param failure the refusal as the originator sees it
     */
    record Refused(ChainException failure) implements HopOutcome {
        /** The failure is required. */
        public Refused {
            Objects.requireNonNull(failure, "failure");
        }
    }
}
