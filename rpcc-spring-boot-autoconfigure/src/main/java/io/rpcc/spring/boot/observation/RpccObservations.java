package io.rpcc.spring.boot.observation;

import io.micrometer.observation.Observation;
import io.rpcc.core.ChainException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/**
 * The names of rpcc's observations and of their key values.
 *
 * <table>
 * <caption>observations</caption>
 * <tr><th>name</th><th>one per</th><th>low-cardinality keys</th><th>high-cardinality keys</th></tr>
 * <tr><td>{@value #CHAIN}</td><td>call of the client ({@link ObservationChainDecorator}), until its result or error
 *     (a reply set: until the set has ended)</td>
 *     <td>{@value #CLIENT}, {@value #SERVER}, {@value #SERVICE}, {@value #OUTCOME}, {@value #ERROR_CODE}</td>
 *     <td>{@value #HOPS}</td></tr>
 * <tr><td>{@value #HOP}</td><td>hop run by the server ({@link ObservationHopDecorator}), until it is done</td>
 *     <td>{@value #NODE}, {@value #SERVICE}, {@value #HOP_KIND}, {@value #HOP_OUTCOME}, {@value #OUTCOME},
 *     {@value #ERROR_CODE}</td>
 *     <td>{@value #CHAIN_ID}, {@value #HOP_NUMBER}, {@value #ORIGINATOR}</td></tr>
 * </table>
 *
 * <p>{@value #OUTCOME} is {@code SUCCESS} or {@code ERROR}; {@value #ERROR_CODE} is the failure's
 * {@code ChainErrorCode} name ({@code NONE} on success, {@code UNKNOWN} for an exception that is not
 * a {@code ChainException}; {@code CANCELLED} for a hop whose chain was cancelled). Failed observations also
 * carry the exception ({@code Observation.error}): at the server, the {@code ChainException} the chain's
 * originator sees for the hop. {@value #HOP_KIND} is the {@code HopDecorator.Kind} ({@code service},
 * {@code chaining_proxy}, {@code sub_chain_return}, {@code merge}); {@value #HOP_OUTCOME} the
 * {@code HopOutcome} ({@code FORWARDED}, {@code FINISHED}, {@code SUB_CHAIN_STARTED}, {@code RETURNED},
 * {@code BRANCH_ENDED}, {@code SPLIT}, {@code DELEGATED}, {@code FAILED}, {@code CANCELLED},
 * {@code REFUSED}).
 */
public final class RpccObservations {
    /** A chain, at the client that started it. */
    public static final String CHAIN = "rpcc.client.chain";
    /** A hop, at the server that ran it. */
    public static final String HOP = "rpcc.server.hop";

    /** The client: rpcc.client.name if set, else spring.application.name (stable across restarts), else its node name. */
    public static final String CLIENT = "rpcc.client";
    /** The chain's first server. */
    public static final String SERVER = "rpcc.server";
    /** The service function: the chain's first one (at the client) or the hop's (at the server; none if no service function ran there). */
    public static final String SERVICE = "rpcc.service";
    /** The server's node name. */
    public static final String NODE = "rpcc.node";
    /** What the hop did at the server: service, chaining_proxy, sub_chain_return or merge. */
    public static final String HOP_KIND = "rpcc.hop.kind";
    /** How the hop ended at the server: FORWARDED, FINISHED, FAILED, CANCELLED, ... */
    public static final String HOP_OUTCOME = "rpcc.hop.outcome";
    /** SUCCESS or ERROR. */
    public static final String OUTCOME = "rpcc.outcome";
    /** The ChainErrorCode name, NONE or UNKNOWN. */
    public static final String ERROR_CODE = "rpcc.error.code";
    /** How many hops the chain made (high cardinality). */
    public static final String HOPS = "rpcc.hops";
    /** The chain's id (high cardinality). */
    public static final String CHAIN_ID = "rpcc.chain.id";
    /** The hop's number in its chain (high cardinality). */
    public static final String HOP_NUMBER = "rpcc.hop";
    /** The node that started the chain (high cardinality). */
    public static final String ORIGINATOR = "rpcc.originator";

    private RpccObservations() {
    }

    /** Marks {@code observation} as failed with {@code error} (unwrapped from completion exceptions). */
    static void failed(Observation observation, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        String code;
        if (cause instanceof ChainException chainException) {
            code = chainException.code().name();
        } else if (cause instanceof CancellationException) { // a future cancelled before it had a chain
            code = "CANCELLED";
        } else {
            code = "UNKNOWN";
        }
        observation.lowCardinalityKeyValue(OUTCOME, "ERROR").lowCardinalityKeyValue(ERROR_CODE, code).error(cause);
    }

    /** Marks {@code observation} as successful. */
    static void succeeded(Observation observation) {
        observation.lowCardinalityKeyValue(OUTCOME, "SUCCESS").lowCardinalityKeyValue(ERROR_CODE, "NONE");
    }
}
