package io.rpcc.core;

import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The chain a thread works for, in the SLF4J MDC ({@link MDC}): while a hop runs, every log line
 * written on its threads, rpcc's and the application's, carries the chain's id, the hop's number and
 * the chain's originator under the keys {@link #CHAIN}, {@link #HOP} and {@link #ORIGINATOR}, for a
 * log pattern ({@code %X{rpcc.chain}}) or a JSON encoder to print.
 *
 * <p>rpcc sets them wherever it makes a hop's {@link ChainContext} current: on the hop's thread, in
 * {@link ChainContext#push()}, and so on the threads of work started through {@link ChainContext#wrap},
 * {@link ChainContext#executor}, {@link ChainContext#startThread} and
 * {@link ChainContext#startVirtualThread}. When the hop (or the task) ends, the values the thread
 * had before are put back, so nothing is left on a pooled thread for its next task. Threads the
 * application starts on its own do not get them (SLF4J's MDC is per thread): start them through the
 * context, or call {@link #put} there.
 *
 * <pre>{@code
 * <pattern>%d %-5level [%X{rpcc.chain} hop %X{rpcc.hop}] %logger - %msg%n</pattern>
 * }</pre>
 */
public final class ChainMdc {
    /** The key of the chain's id, as {@link ChainContext#chainId()}: {@code "client-1#42"}. */
    public static final String CHAIN = "rpcc.chain";
    /** The key of the hop's number, as {@link ChainContext#hop()}, in decimal: {@code "2"}. */
    public static final String HOP = "rpcc.hop";
    /** The key of the chain's originator, as {@link ChainContext#originator()}: {@code "client-1"}. */
    public static final String ORIGINATOR = "rpcc.originator";

    private static final ChainContext.Scope NOTHING = () -> { };
    private static final String[] HOPS = new String[128];

    static {
        for (int i = 0; i < HOPS.length; i++) {
            HOPS[i] = Integer.toString(i);
        }
    }

    private ChainMdc() {
    }

    /**
     * Puts a chain into the calling thread's MDC until the returned scope is closed, which puts back
     * the values the three keys had before (or removes them if they had none). Costs nothing more
     * than three reads if the thread already carries the same values.
     *
     * @param chainId the chain's id
     * @param hop the hop's number
     * @param originator the chain's originator
     * @return what restores the previous values; close it on the same thread
     */
    public static ChainContext.Scope put(String chainId, int hop, String originator) {
        String h = hop >= 0 && hop < HOPS.length ? HOPS[hop] : Integer.toString(hop);
        @Nullable String chain = MDC.get(CHAIN);
        @Nullable String previousHop = MDC.get(HOP);
        @Nullable String previousOriginator = MDC.get(ORIGINATOR);
        if (chainId.equals(chain) && h.equals(previousHop) && originator.equals(previousOriginator)) {
            return NOTHING;
        }
        MDC.put(CHAIN, chainId);
        MDC.put(HOP, h);
        MDC.put(ORIGINATOR, originator);
        return () -> {
            restore(CHAIN, chain);
            restore(HOP, previousHop);
            restore(ORIGINATOR, previousOriginator);
        };
    }

    /** {@link #put} of {@code ctx}'s chain. */
    static ChainContext.Scope put(ChainContext ctx) {
        return put(ctx.chainId(), ctx.hop(), ctx.originator());
    }

    private static void restore(String key, @Nullable String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
