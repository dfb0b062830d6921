package io.rpcc.observability.internal;

/**
 * The names of the meters of the chain and hop decorators ({@link NodeMeters} names its own where it
 * registers them; the guide docs/guides/metrics-and-logs.md lists them all).
 */
public final class MeterNames {
    /** Chains a client started. */
    public static final String CHAINS_STARTED = "rpcc.chains.started";
    /** Chains that ended with their result. */
    public static final String CHAINS_COMPLETED = "rpcc.chains.completed";
    /** Chains that ended with an error; tag {@code code}. */
    public static final String CHAINS_FAILED = "rpcc.chains.failed";
    /** From a chain's start to its end at the originator; tag {@code outcome}. */
    public static final String CHAIN_DURATION = "rpcc.chain.duration";
    /** The partial replies delivered to one chain, recorded when it ends; tag {@code outcome}. */
    public static final String CHAIN_REPLIES = "rpcc.chain.replies";
    /** The bytes of those replies' frames as they came on the wire, recorded when the chain ends; tag {@code outcome}. */
    public static final String CHAIN_REPLY_BYTES = "rpcc.chain.reply.bytes";
    /** A hop at a server, from its start to its end; tags {@code node}, {@code function}, {@code kind}, {@code outcome}. */
    public static final String HOP_DURATION = "rpcc.hop.duration";
    /** A hop's request waiting at a server for its service function; tags {@code node}, {@code function}. */
    public static final String HOP_QUEUE = "rpcc.hop.queue";
    /** A hop's service function running; tags {@code node}, {@code function}. */
    public static final String HOP_SERVICE = "rpcc.hop.service";

    private MeterNames() {
    }
}
