package io.rpcc.core;

import java.util.Locale;

/**
 * What a chain did with its state at one hop under an adaptive state fall-back (paper sections
 * 5.2.2 and 6): whether the originator sent the state on with the hop, for the chaining function to
 * run at the server (chain mode, {@link #carried()}), or kept it and ran the chaining function
 * itself when the hop's result came back (a fall-back to RPC for that step), with the estimates it
 * chose by. Listed in {@link ChainResult#stateChoices()} and printed by {@link ChainProfile}.
 *
 * @param hop the hop whose chaining function the state was for
 * @param server the server of that hop
 * @param stateBytes the encoded size of the state; for a state kept at the originator, possibly where
 *     its counting stopped, past the size at which carrying it would cost more (then its
 *     {@code reason} says "over", and the state is at least that large)
 * @param carried {@code true}: the state went to {@code server} (and the chain went on in chain
 *     mode from there); {@code false}: it stayed at the originator
 * @param carryNanos the estimated time from sending the hop to the next hop's arrival if the state
 *     is carried: one way to the server, the state's transmission, one way on to the next server;
 *     -1 if it could not be estimated
 * @param fallbackNanos the same estimate if the state stays: one way to the server, back to the
 *     originator, and out to the next server; -1 if it could not be estimated
 * @param reason in words: the measurements the estimates were made of, or why there were none
 */
public record StateChoice(int hop, String server, long stateBytes, boolean carried, long carryNanos,
                          long fallbackNanos, String reason) {

    /** One line: {@code hop 1 at 'a': 300.0 KB carried (est. carry 60.2 ms, fall back 64.1 ms): ...}. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "hop %d at '%s': %.1f KB %s (est. carry %s, fall back %s): %s", hop, server,
                stateBytes / 1024.0, carried ? "carried" : "kept at the originator", ms(carryNanos), ms(fallbackNanos),
                reason);
    }

    private static String ms(long nanos) {
        return nanos < 0 ? "unknown" : String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
}
