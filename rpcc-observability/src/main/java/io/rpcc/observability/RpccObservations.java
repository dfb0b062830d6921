package io.rpcc.observability;

/**
 * The names of the observations {@link RpccTracing} records, of the spans they become, and of their
 * key values (span attributes) and events.
 *
 * <table>
 * <caption>observations</caption>
 * <tr><th>observation</th><th>span name</th><th>kind</th><th>one per</th></tr>
 * <tr><td>{@value #CHAIN}</td><td>{@code rpcc chain <server> <service>}</td><td>CLIENT</td>
 *     <td>call of a client, from its start until its result or error (a reply set: until the set has ended)</td></tr>
 * <tr><td>{@value #HOP}</td><td>{@code rpcc hop <service>} (or {@code rpcc hop (<kind>)})</td><td>SERVER</td>
 *     <td>hop a server runs, until it is done (its frames written, its replies sent)</td></tr>
 * <tr><td>{@value #SERVICE}</td><td>{@code rpcc service <service>}</td><td>INTERNAL</td>
 *     <td>run of a service function, inside its hop</td></tr>
 * <tr><td>{@value #CHAINING}</td><td>{@code rpcc chaining}</td><td>INTERNAL</td>
 *     <td>run of a chaining function (or merge function), inside its hop</td></tr>
 * <tr><td>{@value #SEND}</td><td>{@code rpcc send <server> <service>}</td><td>CLIENT</td>
 *     <td>request a hop sends on (next hop, a sub-chain's first hop, each branch of a split): it carries
 *     the trace context to the hop it starts</td></tr>
 * </table>
 */
public final class RpccObservations {
    /** A chain, at the client that started it. */
    public static final String CHAIN = "rpcc.client.chain";
    /** A hop, at the server that ran it. */
    public static final String HOP = "rpcc.server.hop";
    /** A service function's run, inside its hop. */
    public static final String SERVICE = "rpcc.server.service";
    /** A chaining function's run, inside its hop. */
    public static final String CHAINING = "rpcc.server.chaining";
    /** A request sent on by a hop (next hop, sub-chain, split branch). */
    public static final String SEND = "rpcc.server.send";

    /** Key: the chain's first server (at the client) or the server a request is sent to (send). */
    public static final String SERVER = "rpcc.server";
    /** Key: the service function: the chain's first (client), the hop's, or the one a request calls (send). */
    public static final String SERVICE_FUNCTION = "rpcc.service";
    /** Key: the node that recorded the span. */
    public static final String NODE = "rpcc.node";
    /** Key: what the hop did: {@code service}, {@code chaining_proxy}, {@code sub_chain_return} or {@code merge}. */
    public static final String HOP_KIND = "rpcc.hop.kind";
    /** Key: how the hop ended: {@code FORWARDED}, {@code FINISHED}, {@code SUB_CHAIN_STARTED}, ... */
    public static final String HOP_OUTCOME = "rpcc.hop.outcome";
    /** Key: {@code SUCCESS} or {@code ERROR}. */
    public static final String OUTCOME = "rpcc.outcome";
    /** Key: the failure's {@code ChainErrorCode} name, {@code NONE} on success, {@code UNKNOWN} for another exception. */
    public static final String ERROR_CODE = "rpcc.error.code";
    /** Key (high cardinality): the node a failure happened at, as the originator sees it. */
    public static final String ERROR_HOST = "rpcc.error.host";
    /** Key (high cardinality): the hop a failure happened at. */
    public static final String ERROR_HOP = "rpcc.error.hop";
    /** Key (high cardinality): the chain's id. */
    public static final String CHAIN_ID = "rpcc.chain.id";
    /** Key (high cardinality): the hop's number in its chain. */
    public static final String HOP_NUMBER = "rpcc.hop";
    /** Key (high cardinality): the branch the hop is on ({@code root} until a split). */
    public static final String BRANCH = "rpcc.branch";
    /** Key (high cardinality): the node that started the chain. */
    public static final String ORIGINATOR = "rpcc.originator";
    /** Key (high cardinality): how many hops the chain made (client). */
    public static final String HOPS = "rpcc.hops";
    /** Key (high cardinality): how many partial replies the client received (client, reply sets). */
    public static final String REPLIES = "rpcc.replies";

    /** Event: the hop sent a partial reply ({@code preturn}). */
    public static final String EVENT_REPLY = "rpcc.reply";
    /** Event: the client sent the chain again after a retryable failure (its retry policy). */
    public static final String EVENT_RETRY = "rpcc.retry";
    /**
     * Event: a request went to a later endpoint of its server's name after an earlier one could not
     * take it (on the chain for its first hop, on the hop that sent it at a server); its contextual
     * name, which names the span event, adds the server, both endpoints and why:
     * {@code rpcc.failover <server> <failed> -> <next>: <why>}.
     */
    public static final String EVENT_FAILOVER = "rpcc.failover";
    /** Event: the client cancelled the chain (or its timeout did). */
    public static final String EVENT_CANCELLED = "rpcc.cancelled";
    /** Event: the chain timed out at the client. */
    public static final String EVENT_TIMED_OUT = "rpcc.timeout";
    /** Event: the client's result arrived. */
    public static final String EVENT_RESULT = "rpcc.result";

    private RpccObservations() {
    }
}
